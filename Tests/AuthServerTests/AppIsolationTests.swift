import Foundation
import JOSE
import ProviderStandIn
import Testing

/// Apps are separate (docs/security.md): two apps on one server and one store, over real HTTP, on
/// every store. App A offers anonymous sign-in and a 6-character password rule; app B neither
/// anonymous sign-in nor short passwords (12).
@Suite("Apps are separate", .serialized)
struct AppIsolationTests {
    static let secret = "function-secret-0123456789abcdef-0123456789"

    static func apps(function: String, mailFile: String) -> String {
        let mail = #""delivery": { "command": ["/bin/sh", "-c", "cat >> \#(mailFile)"] }"#
        let fn = #""custom-function": { "url": "\#(function)", "secret_file": "fn.secret" }"#
        return #"""
            { "appa": { "providers": { "anon-user": {}, "api-key": {}, \#(fn),
                                       "local-userpass": { "auto_confirm": true, "min_password_length": 6, \#(mail) } } },
              "appb": { "providers": { "api-key": {}, \#(fn),
                                       "local-userpass": { "auto_confirm": true, "min_password_length": 12, \#(mail) } } } }
            """#
    }

    /// A server with apps `appa` and `appb`, a custom function, and mail appended to a file.
    static func with(_ kind: StoreKind, extra: String = "", _ body: (LiveServer, String) async throws -> Void) async throws {
        let mailFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mailFile) }
        let function = try await FunctionStandIn.start(secret: Array(secret.utf8))
        do {
            try await LiveServer.with(kind, apps: apps(function: function.url, mailFile: mailFile), extra: extra, files: ["fn.secret": secret + "\n"])
            { s in
                try await body(s, mailFile)
            }
            try await function.shutdown()
        } catch {
            try? await function.shutdown()
            throw error
        }
    }

    static func provider(_ app: String, _ provider: String) -> String { LiveServer.base + "/app/\(app)/auth/providers/\(provider)" }

    @Test("an API key of app A does not sign in to app B", arguments: StoreKind.available)
    func apiKeyStaysInItsApp(kind: StoreKind) async throws {
        try await Self.with(kind) { s, _ in
            let anon = try await s.call(.POST, Self.provider("appa", "anon-user") + "/login", body: "{}")
            #expect(anon.status == 200, "\(anon.body)")
            let refresh = try #require(anon["refresh_token"])
            let created = try await s.call(.POST, LiveServer.base + "/auth/api_keys", body: #"{"name":"k"}"#, bearer: refresh)
            let key = try #require(created["key"])
            let inB = try await s.call(.POST, Self.provider("appb", "api-key") + "/login", body: #"{"key":"\#(key)"}"#)
            #expect(inB.status == 401 && inB.errorCode == "AuthError", "\(inB.body)")
            let inA = try await s.call(.POST, Self.provider("appa", "api-key") + "/login", body: #"{"key":"\#(key)"}"#)
            #expect(inA.status == 200 && inA["user_id"] == anon["user_id"])
        }
    }

    @Test("the same custom-function id in two apps is two users", arguments: StoreKind.available)
    func functionUsersAreApart(kind: StoreKind) async throws {
        try await Self.with(kind) { s, _ in
            let a = try await s.call(.POST, Self.provider("appa", "custom-function") + "/login", body: #"{"user":"ada"}"#)
            let b = try await s.call(.POST, Self.provider("appb", "custom-function") + "/login", body: #"{"user":"ada"}"#)
            #expect(a.status == 200 && b.status == 200, "\(a.body) \(b.body)")
            let ua = try #require(a["user_id"]), ub = try #require(b["user_id"])
            #expect(ua != ub)
            // Each app's profile sees its own user; an app's token is refused on the other's path.
            let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: b["access_token"])
            #expect(profile["user_id"] == ub)
            let again = try await s.call(.POST, Self.provider("appa", "custom-function") + "/login", body: #"{"user":"ada"}"#)
            #expect(again["user_id"] == ua)
        }
    }

    @Test("an email is one account per app", arguments: StoreKind.available)
    func accountsAreApart(kind: StoreKind) async throws {
        try await Self.with(kind) { s, _ in
            let email = "ann@example.com", longA = "password-of-a", longB = "password-of-app-b"
            for (app, password) in [("appa", longA), ("appb", longB)] {
                let r = try await s.call(
                    .POST, Self.provider(app, "local-userpass") + "/register", body: AccountRoutesTests.json(["email": email, "password": password]))
                #expect(r.status == 201)
            }
            let inA = try await s.call(
                .POST, Self.provider("appa", "local-userpass") + "/login", body: AccountRoutesTests.json(["username": email, "password": longA]))
            let inB = try await s.call(
                .POST, Self.provider("appb", "local-userpass") + "/login", body: AccountRoutesTests.json(["username": email, "password": longB]))
            #expect(inA.status == 200 && inB.status == 200, "\(inA.body) \(inB.body)")
            #expect(inA["user_id"] != nil && inA["user_id"] != inB["user_id"])
            let crossed = try await s.call(
                .POST, Self.provider("appb", "local-userpass") + "/login", body: AccountRoutesTests.json(["username": email, "password": longA]))
            #expect(crossed.status == 401)
        }
    }

    @Test("app B's reset token posted to app A's reset is UserpassTokenInvalid and stays good in B", arguments: StoreKind.available)
    func resetTokensAreApart(kind: StoreKind) async throws {
        try await Self.with(kind) { s, mailFile in
            let email = "bob@example.com"
            let r = try await s.call(
                .POST, Self.provider("appb", "local-userpass") + "/register",
                body: AccountRoutesTests.json(["email": email, "password": "password-of-app-b"]))
            #expect(r.status == 201)
            let sent = try await s.call(
                .POST, Self.provider("appb", "local-userpass") + "/reset/send", body: AccountRoutesTests.json(["email": email]))
            #expect(sent.status == 204)
            let mail = try await AccountRoutesTests.mail(mailFile, 1)
            let line = try #require(mail.components(separatedBy: "\r\n").first { $0.hasPrefix("http://auth.test/app/appb/reset") })
            let items = try #require(URLComponents(string: line)?.queryItems)
            let token = try #require(items.first { $0.name == "token" }?.value), tokenID = try #require(items.first { $0.name == "tokenId" }?.value)

            // Six characters pass app A's rule, never app B's: app A must not take B's token.
            let crossed = try await s.call(
                .POST, Self.provider("appa", "local-userpass") + "/reset",
                body: AccountRoutesTests.json(["token": token, "tokenId": tokenID, "password": "short6"]))
            #expect(crossed.status == 400 && crossed.errorCode == "UserpassTokenInvalid", "\(crossed.body)")
            let weak = try await s.call(
                .POST, Self.provider("appb", "local-userpass") + "/login", body: AccountRoutesTests.json(["username": email, "password": "short6"]))
            #expect(weak.status == 401)
            // The token is still good in its own app.
            let own = try await s.call(
                .POST, Self.provider("appb", "local-userpass") + "/reset",
                body: AccountRoutesTests.json(["token": token, "tokenId": tokenID, "password": "a new long password"]))
            #expect(own.status == 204, "\(own.body)")
        }
    }

    @Test("failed logins in one app do not lock the same email in another", arguments: StoreKind.available)
    func failureLimitStaysInItsApp(kind: StoreKind) async throws {
        try await Self.with(kind, extra: #""limits": { "failed_login_per_account": "2/15m" },"#) { s, _ in
            let email = "cat@example.com", longA = "password-of-a", longB = "password-of-app-b"
            for (app, password) in [("appa", longA), ("appb", longB)] {
                let r = try await s.call(
                    .POST, Self.provider(app, "local-userpass") + "/register", body: AccountRoutesTests.json(["email": email, "password": password]))
                #expect(r.status == 201)
            }
            func login(_ app: String, _ password: String) async throws -> Int {
                try await s.call(
                    .POST, Self.provider(app, "local-userpass") + "/login", body: AccountRoutesTests.json(["username": email, "password": password])
                ).status
            }
            for _ in 0..<2 { #expect(try await login("appa", "not the password") == 401) }
            #expect(try await login("appa", longA) == 429, "the limit holds in its app, right password included")
            #expect(try await login("appb", longB) == 200, "another app's account with the same email is not locked")
        }
    }
}
