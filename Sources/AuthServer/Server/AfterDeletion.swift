import Foundation
import Identity
import JOSE
import Logging

extension AuthServer {
    /// What follows a deletion without holding up the answer: Apple refresh tokens revoked at
    /// Apple, the `user_deleted` webhook told; both through the background queue (retried, logged).
    func afterDeletion(userID: String, app: AppRuntime, providerTokens: [(provider: String, token: String)]) {
        if let apple = loginMethods[app.config.id]?.method(AppleLogin.self) {
            for (provider, stored) in providerTokens where provider == AppleLogin.name {
                let kept = KeptProviderToken(stored: stored, orIssuedTo: apple.clientID)
                background.add("apple token revocation", app: app.config.id) {
                    try await apple.provider.revoke(token: kept.token, clientID: kept.clientID)
                }
            }
        }
        if let hook = app.config.userDeletedWebhook {
            let transport = self.transport
            let body = JSONValue.object(["type": "user_deleted", "app": .string(app.config.id), "user_id": .string(userID)]).jsonBytes
            background.add("user_deleted webhook", app: app.config.id) {
                let response = try await transport.send(
                    HTTPRequest(method: "POST", url: hook, headers: [("Content-Type", "application/json")], body: body))
                guard (200..<300).contains(response.status) else { throw TokenError(.storeUnavailable, "webhook answered \(response.status)") }
            }
        }
    }
}

/// A provider token kept with an identity, with the client id it was issued to: Apple revokes a
/// refresh token only for that client (with several `client_ids`, a bundle id and a web Services
/// ID, no other choice is right). Stored as `{"client_id","token"}` inside the sealed value.
struct KeptProviderToken: Sendable {
    let clientID: String
    let token: String

    init(clientID: String, token: String) {
        self.clientID = clientID
        self.token = token
    }

    /// The stored form read back; a bare token (kept before client ids were) was issued to
    /// `fallback`, the client every code was exchanged for then (`client_ids[0]`).
    init(stored: String, orIssuedTo fallback: String) {
        if stored.hasPrefix("{"), let o = try? JSONValue(parsing: stored).objectValue, let id = o["client_id"]?.stringValue,
            let token = o["token"]?.stringValue
        {
            self.init(clientID: id, token: token)
        } else {
            self.init(clientID: fallback, token: stored)
        }
    }

    var stored: String { JSONValue.object(["client_id": .string(clientID), "token": .string(token)]).jsonString }
}
