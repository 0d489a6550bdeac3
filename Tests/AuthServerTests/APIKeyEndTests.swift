import Foundation
import JOSE
import NIOHTTP1
import Testing

/// What ends an API key and the sessions it opened (docs/security.md, finding 6), over HTTP, on
/// every store.
@Suite("API keys end", .serialized)
struct APIKeyEndTests {
    static let keys = LiveServer.base + "/auth/api_keys"
    static let prefix = LiveServer.base + "/app/myapp/auth/providers/"

    @Test("sessions opened by a key end when the key is disabled or deleted", arguments: StoreKind.available)
    func keySessionsEndWithTheKey(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let refresh = try #require(try await s.call(.POST, Self.prefix + "anon-user/login", body: "{}")["refresh_token"])
            let created = try await s.call(.POST, Self.keys, body: #"{"name":"ci"}"#, bearer: refresh)
            let id = try #require(created["_id"]), key = try #require(created["key"])
            for action in ["/disable", ""] {
                let byKey = try await s.call(.POST, Self.prefix + "api-key/login", body: #"{"key":"\#(key)"}"#)
                #expect(byKey.status == 200, "\(byKey.body)")
                let keyRefresh = try #require(byKey["refresh_token"]), keyAccess = try #require(byKey["access_token"])
                #expect(try await s.call(action.isEmpty ? .DELETE : .PUT, Self.keys + "/" + id + action, bearer: refresh).status == 204)
                #expect(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: keyRefresh).status == 401, "refresh after \(action)")
                #expect(try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: keyAccess).status == 401)
                let mint = try await s.call(.POST, Self.keys, body: #"{"name":"more"}"#, bearer: keyRefresh)
                #expect(mint.status == 401 && mint.errorCode == "InvalidSession", "\(mint.body)")
                if !action.isEmpty { #expect(try await s.call(.PUT, Self.keys + "/" + id + "/enable", bearer: refresh).status == 204) }
            }
            // The session that made the key goes on.
            #expect(try await s.call(.GET, Self.keys, bearer: refresh).status == 200)
        }
    }

    @Test("a disabled user cannot manage API keys (403 UserDisabled)", arguments: StoreKind.available)
    func disabledUserManagesNoKeys(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let login = try await s.call(.POST, Self.prefix + "anon-user/login", body: "{}")
            let refresh = try #require(login["refresh_token"]), user = try #require(login["user_id"])
            let id = try #require(try await s.call(.POST, Self.keys, body: #"{"name":"ci"}"#, bearer: refresh)["_id"])
            try await #require(s.server.apps["myapp"]).sessions.setUserDisabled(id: user, true)
            for (method, path, body) in [
                (NIOHTTP1.HTTPMethod.GET, Self.keys, nil), (.POST, Self.keys, #"{"name":"more"}"#), (.GET, Self.keys + "/" + id, nil),
                (.PUT, Self.keys + "/" + id + "/enable", nil), (.DELETE, Self.keys + "/" + id, nil),
            ] {
                let answer = try await s.call(method, path, body: body, bearer: refresh)
                #expect(answer.status == 403 && answer.errorCode == "UserDisabled", "\(method) \(path): \(answer.status) \(answer.body)")
            }
        }
    }

    @Test("a completed password reset disables the user's API keys, and the notice says so", arguments: StoreKind.available)
    func resetDisablesKeys(kind: StoreKind) async throws {
        let mailFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mailFile) }
        let apps =
            #"{ "myapp": { "providers": { "api-key": {}, "local-userpass": { "auto_confirm": true, "delivery": { "command": ["/bin/sh", "-c", "cat >> \#(mailFile)"] } } } } }"#
        try await LiveServer.with(kind, apps: apps) { s in
            let email = "dana@example.com"
            _ = try await s.call(
                .POST, Self.prefix + "local-userpass/register", body: AccountRoutesTests.json(["email": email, "password": "first password"]))
            let login = try await s.call(
                .POST, Self.prefix + "local-userpass/login", body: AccountRoutesTests.json(["username": email, "password": "first password"]))
            let refresh = try #require(login["refresh_token"])
            let key = try #require(try await s.call(.POST, Self.keys, body: #"{"name":"ci"}"#, bearer: refresh)["key"])
            #expect(try await s.call(.POST, Self.prefix + "api-key/login", body: #"{"key":"\#(key)"}"#).status == 200)

            _ = try await s.call(.POST, Self.prefix + "local-userpass/reset/send", body: AccountRoutesTests.json(["email": email]))
            let link = try AccountRoutesTests.link(try await AccountRoutesTests.mail(mailFile, 1))
            let reset = try await s.call(
                .POST, Self.prefix + "local-userpass/reset",
                body: AccountRoutesTests.json(["token": link.token, "tokenId": link.tokenID, "password": "second password"]))
            #expect(reset.status == 204)
            let refused = try await s.call(.POST, Self.prefix + "api-key/login", body: #"{"key":"\#(key)"}"#)
            #expect(refused.status == 401 && refused.errorCode == "AuthError")
            #expect(try await AccountRoutesTests.mail(mailFile, 2).contains("API keys were disabled"))
            // The owner, signed in again, sees the key disabled and may enable it.
            let again = try await s.call(
                .POST, Self.prefix + "local-userpass/login", body: AccountRoutesTests.json(["username": email, "password": "second password"]))
            let list = try await s.call(.GET, Self.keys, bearer: again["refresh_token"])
            #expect(list.json?.arrayValue?.first?.objectValue?["disabled"] == .bool(true), "\(list.body)")
        }
    }
}
