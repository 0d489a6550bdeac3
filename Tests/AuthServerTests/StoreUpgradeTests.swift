import Foundation
import JOSE
import Testing
@testable import Sessions

/// A store written by the current release (schema 3) opens under the server, keeps every row,
/// and its sessions go on.
@Suite("Store upgrade", .serialized)
struct StoreUpgradeTests {
    @Test(
        "schema 3 rows survive steps 4 to 7 (families renamed sessions); the old refresh token refreshes over HTTP; idle anonymous users are swept",
        arguments: StoreKind.available)
    func upgrade(kind: StoreKind) async throws {
        let token = try RefreshToken.generate()
        try await Harness.withStore(kind, migratingTo: 3) { old in
            #expect(try await old.store.schemaVersion() == 3)
            let bool = "FALSE"
            for sql in [
                "INSERT INTO users (id, created_at) VALUES ('u1', 100)",
                "INSERT INTO identities (provider, subject, user_id, email, email_verified, profile, created_at) VALUES ('oauth2-google', 's1', 'u1', NULL, \(bool), NULL, 100)",
                // An anonymous user unused for 90 days: the server's sweep removes it.
                "INSERT INTO users (id, created_at) VALUES ('u-anon', 100)",
                "INSERT INTO identities (provider, subject, user_id, email, email_verified, profile, created_at) VALUES ('anon-user', 's2', 'u-anon', NULL, \(bool), NULL, 100)",
                // Schema 3 called sessions families (renamed by step 7).
                "INSERT INTO families (id, user_id, client_id, created_at, expires_at, idle_expires_at, last_used_at) VALUES ('f1', 'u1', 'myapp', 100, 4000000000, 4000000000, 100)",
                "INSERT INTO refresh_tokens (hash, family_id, created_at) VALUES ('\(RefreshToken.hash(token))', 'f1', 100)",
            ] { try await old.executeRaw(sql) }
            try await old.store.close()

            try await LiveServer.with(kind, store: old.location) { s in
                let sessions = try #require(s.server.apps["myapp"]).sessions
                #expect(try await s.server.store.schemaVersion() == SessionSchema.latestVersion)
                #expect(try await sessions.user(id: "u1") == UserRecord(id: "u1", createdAt: 100, app: "myapp"))
                #expect(try await sessions.identities(of: "u1").map(\.subject) == ["s1"])
                let session = try #require(try await sessions.session(id: "f1"))
                #expect(session.device == nil && session.revokedAt == nil && session.expiresAt == 4_000_000_000)
                for _ in 0..<100 where try await sessions.user(id: "u-anon") != nil { try await Task.sleep(for: .milliseconds(50)) }
                #expect(try await sessions.user(id: "u-anon") == nil)
                #expect(try await sessions.user(id: "u1") != nil)
                let refreshed = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: token)
                #expect(refreshed.status == 201, "\(refreshed.body)")
                let access = try #require(refreshed["access_token"])
                let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: access)
                #expect(profile.status == 200 && profile["user_id"] == "u1")
            }
        }
    }

    @Test(
        "schema 8 rows (one app) join the app at start: the password, the API key and the refresh token of today's code still sign in",
        arguments: StoreKind.available)
    func upgradeToSeparateApps(kind: StoreKind) async throws {
        let token = try RefreshToken.generate(), key = try RefreshToken.generate()
        let hash = try await PasswordHasher(parameters: Scrypt.Parameters(logN: 10, r: 8, p: 1)).hash("old password").encoded
        try await Harness.withStore(kind, migratingTo: 8) { old in
            for sql in [
                "INSERT INTO users (id, created_at) VALUES ('u1', 100)",
                """
                INSERT INTO identities (provider, issuer, subject, user_id, email, email_verified, profile, created_at)
                VALUES ('local-userpass', '', 'Old@example.com', 'u1', 'Old@example.com', TRUE, NULL, 100)
                """,
                """
                INSERT INTO accounts (user_id, email, email_key, password_hash, confirmed_at, created_at)
                VALUES ('u1', 'Old@example.com', 'old@example.com', '\(hash)', 100, 100)
                """,
                "INSERT INTO api_keys (id, user_id, name, hash, disabled, created_at) VALUES ('k1', 'u1', 'ci', '\(RefreshToken.hash(key))', FALSE, 100)",
                """
                INSERT INTO sessions (id, user_id, client_id, created_at, expires_at, idle_expires_at, last_used_at)
                VALUES ('s1', 'u1', 'myapp', 100, 4000000000, 4000000000, 100)
                """,
                "INSERT INTO refresh_tokens (hash, session_id, created_at) VALUES ('\(RefreshToken.hash(token))', 's1', 100)",
                // A user without a session (made by the CLI): a server with one app adopts it too.
                "INSERT INTO users (id, created_at) VALUES ('u2', 100)",
                """
                INSERT INTO identities (provider, issuer, subject, user_id, email, email_verified, profile, created_at)
                VALUES ('oauth2-google', '', 'g2', 'u2', NULL, FALSE, NULL, 100)
                """,
            ] { try await old.executeRaw(sql) }
            try await old.store.close()

            let apps = #"{ "myapp": { "providers": { "api-key": {}, "local-userpass": { "auto_confirm": true } } } }"#
            try await LiveServer.with(kind, apps: apps, store: old.location) { s in
                let refreshed = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: token)
                #expect(refreshed.status == 201, "\(refreshed.body)")
                let prefix = LiveServer.base + "/app/myapp/auth/providers/"
                let password = try await s.call(
                    .POST, prefix + "local-userpass/login", body: #"{"username":"old@example.com","password":"old password"}"#)
                #expect(password.status == 200 && password["user_id"] == "u1", "\(password.body)")
                let byKey = try await s.call(.POST, prefix + "api-key/login", body: #"{"key":"\#(key)"}"#)
                #expect(byKey.status == 200 && byKey["user_id"] == "u1", "\(byKey.body)")
                let keys = try await s.call(.GET, LiveServer.base + "/auth/api_keys", bearer: token)
                #expect(keys.status == 200 && keys.body.contains(#""name":"ci""#), "\(keys.body)")
                // The key's id became an ObjectId (its creation time, then random bytes); the path takes it.
                let keyID = try #require(keys.json?.arrayValue?.first?.objectValue?["_id"]?.stringValue)
                #expect(keyID.count == 24 && keyID.hasPrefix("00000064") && ObjectID(hex: keyID) != nil, "\(keyID)")
                #expect(try await s.call(.GET, LiveServer.base + "/auth/api_keys/" + keyID, bearer: token)["name"] == "ci")
                let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: password["access_token"])
                #expect(profile.status == 200 && profile["user_id"] == "u1")
                let sessions = try #require(s.server.apps["myapp"]).sessions
                #expect(try await sessions.user(id: "u2")?.app == "myapp")
                #expect(try await sessions.identities(of: "u2").map(\.app) == ["myapp"])
            }
        }
    }

    @Test(
        "schema 8 confirm and reset links (account_tokens) still work after steps 9 to 12 (one_time_tokens) and the app's adoption",
        arguments: StoreKind.available)
    func upgradeKeepsMailedLinks(kind: StoreKind) async throws {
        let hash = try await PasswordHasher(parameters: Scrypt.Parameters(logN: 10, r: 8, p: 1)).hash("old password").encoded
        let reset = try RefreshToken.generate(), used = try RefreshToken.generate(), confirm = try RefreshToken.generate()
        try await Harness.withStore(kind, migratingTo: 8) { old in
            for sql in [
                "INSERT INTO users (id, created_at) VALUES ('u1', 100), ('u2', 100)",
                """
                INSERT INTO identities (provider, issuer, subject, user_id, email, email_verified, profile, created_at) VALUES
                  ('local-userpass', '', 'old@example.com', 'u1', 'old@example.com', TRUE, NULL, 100),
                  ('local-userpass', '', 'new@example.com', 'u2', 'new@example.com', FALSE, NULL, 100)
                """,
                """
                INSERT INTO accounts (user_id, email, email_key, password_hash, confirmed_at, created_at) VALUES
                  ('u1', 'old@example.com', 'old@example.com', '\(hash)', 100, 100), ('u2', 'new@example.com', 'new@example.com', '\(hash)', NULL, 100)
                """,
                """
                INSERT INTO account_tokens (hash, token_id, user_id, purpose, created_at, expires_at, used_at) VALUES
                  ('\(OneTimeToken.hash(reset))', 'tid-r', 'u1', 'reset', 100, 4000000000, NULL),
                  ('\(OneTimeToken.hash(used))', 'tid-u', 'u1', 'reset', 100, 4000000000, 150),
                  ('\(OneTimeToken.hash(confirm))', 'tid-c', 'u2', 'confirm', 100, 4000000000, NULL)
                """,
            ] { try await old.executeRaw(sql) }
            try await old.store.close()

            let apps = #"{ "myapp": { "providers": { "local-userpass": {} } } }"#
            try await LiveServer.with(kind, apps: apps, store: old.location) { s in
                let prefix = LiveServer.base + "/app/myapp/auth/providers/local-userpass"
                // A used link stays refused (the start's sweep may already have removed it).
                let spent = try await s.call(.POST, prefix + "/reset", body: #"{"token":"\#(used)","tokenId":"tid-u","password":"other password"}"#)
                #expect(spent.status == 400 && spent.errorCode == "UserpassTokenInvalid", "\(spent.body)")
                let form = try await s.call(.GET, "/app/myapp/reset?token=\(reset)&tokenId=tid-r")
                #expect(form.status == 200 && form.body.contains("<form"), "\(form.body)")
                let posted = try await s.call(
                    .POST, "/app/myapp/reset", body: "token=\(reset)&tokenId=tid-r&password=new+password&confirm=new+password",
                    headers: [("Content-Type", "application/x-www-form-urlencoded")])
                #expect(posted.status == 200 && posted.body.contains("Your password was changed"), "\(posted.body)")
                let login = try await s.call(.POST, prefix + "/login", body: #"{"username":"old@example.com","password":"new password"}"#)
                #expect(login.status == 200 && login["user_id"] == "u1", "\(login.body)")
                let confirmed = try await s.call(.POST, prefix + "/confirm", body: #"{"token":"\#(confirm)","tokenId":"tid-c"}"#)
                #expect(confirmed.status == 204, "\(confirmed.body)")
                let again = try await s.call(.POST, prefix + "/confirm", body: #"{"token":"\#(confirm)","tokenId":"tid-c"}"#)
                #expect(again.status == 400 && again.errorCode == "UserpassTokenInvalid", "\(again.body)")
            }
        }
    }
}
