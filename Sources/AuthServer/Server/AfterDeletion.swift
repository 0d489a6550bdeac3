import Foundation
import Identity
import JOSE
import Logging

extension AuthServer {
    /// What follows a deletion without holding up the answer: Apple refresh tokens revoked at
    /// Apple, the `user_deleted` webhook told; both through the background queue (retried, logged).
    func afterDeletion(userID: String, app: AppRuntime, providerTokens: [(provider: String, token: String)]) {
        if let apple = providers[app.config.id]?.apple {
            for (provider, token) in providerTokens where provider == "oauth2-apple" {
                background.add("apple token revocation", app: app.config.id) { try await apple.revoke(token: token) }
            }
        }
        if let hook = app.config.userDeletedWebhook {
            let transport = self.transport
            let body = JSONValue.object(["type": "user_deleted", "app": .string(app.config.id), "user_id": .string(userID)]).jsonBytes
            background.add("user_deleted webhook", app: app.config.id) {
                let response = try await transport.send(HTTPRequest(method: "POST", url: hook, headers: [("Content-Type", "application/json")], body: body))
                guard (200..<300).contains(response.status) else { throw TokenError(.storeUnavailable, "webhook answered \(response.status)") }
            }
        }
    }
}
