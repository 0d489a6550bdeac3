import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Sessions of an OpenID Connect sign-in (schema step 13): a chosen id, the OP session, `auth_time`,
/// `amr` and the scopes kept with the session and carried by its tokens; ending an OP session's
/// sessions; the upgrade from step 12; a deleted user's one-time tokens. On every store.
@Suite struct SessionSignInTests {
    static let signIn = SessionSignIn(opSessionID: "op-sid-1", authTime: 1_899_999_990, amr: ["pwd", "mfa"], scopes: ["openid", "email"])

    @Test(
        "a sign-in's session keeps its chosen id, OP session, auth_time, amr and scopes; its tokens carry client_id and scope",
        arguments: StoreKind.available)
    func sessionOfASignIn(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            _ = try await sessions.ensureUser(id: "alice")
            let pair = try await sessions.issueTokens(userID: "alice", clientID: "portal", sessionID: "chosen-session", signIn: Self.signIn)
            #expect(pair.sessionID == "chosen-session" && pair.clientID == "portal")
            let stored = try #require(try await Conformance.session(t.store, id: "chosen-session"))
            #expect(stored.signIn == Self.signIn && stored.clientID == "portal")
            let claims = try await sessions.verifyAccessToken(pair.accessToken)
            #expect(claims.clientID == "portal" && claims.scope == "openid email" && claims.sessionID == "chosen-session")
            // A refresh carries them on.
            clock.advance(5)
            let next = try await sessions.refresh(pair.refreshToken)
            let again = try await sessions.verifyAccessToken(next.accessToken)
            #expect(again.clientID == "portal" && again.scope == "openid email" && again.sessionID == "chosen-session")
            // An App Services session has none.
            let plain = try await sessions.issueTokens(userID: "alice")
            #expect(try await Conformance.session(t.store, id: plain.sessionID)?.signIn == nil)
            #expect(try await sessions.verifyAccessToken(plain.accessToken).scope == nil)
            // The id is the code's: a second session with it is refused, and a bad id is invalid input.
            await #expect(throws: (any Error).self) {
                try await sessions.issueTokens(userID: "alice", clientID: "portal", sessionID: "chosen-session", signIn: Self.signIn)
            }
            let code = await Conformance.code {
                try await sessions.issueTokens(userID: "alice", clientID: "portal", sessionID: "", signIn: Self.signIn)
            }
            #expect(code == "invalid_input")
        }
    }

    @Test("ending an OP session's sessions ends those issued through it, and no other", arguments: StoreKind.available)
    func endingAnOPSession(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            _ = try await sessions.ensureUser(id: "alice")
            let a = try await sessions.issueTokens(userID: "alice", clientID: "portal", sessionID: "s-a", signIn: Self.signIn)
            let b = try await sessions.issueTokens(userID: "alice", clientID: "spa", sessionID: "s-b", signIn: Self.signIn)
            var other = Self.signIn
            other.opSessionID = "op-sid-2"
            let c = try await sessions.issueTokens(userID: "alice", clientID: "portal", sessionID: "s-c", signIn: other)
            let plain = try await sessions.issueTokens(userID: "alice")
            #expect(try await sessions.service.revokeSessions(opSessionID: "op-sid-1") == 2)
            #expect(try await sessions.service.revokeSessions(opSessionID: "op-sid-1") == 0)
            for pair in [a, b] { #expect(await Conformance.code { try await sessions.refresh(pair.refreshToken) } == "refresh_token_revoked") }
            for pair in [c, plain] { #expect(try await sessions.session(id: pair.sessionID)?.revokedAt == nil) }
        }
    }

    @Test("schema 12 sessions go on under step 13 with no sign-in; new ones keep theirs", arguments: StoreKind.available)
    func upgradeFromStep12(kind: StoreKind) async throws {
        let token = Base64URL.encode([UInt8](repeating: 0x5A, count: 32))
        let hash = Base64URL.encode(SHA2.sha256(Array(token.utf8)))
        try await Harness.withStore(kind, migratingTo: 12) { t in
            for sql in [
                "INSERT INTO users (id, created_at) VALUES ('u12', 1899990000)",
                """
                INSERT INTO sessions (id, user_id, client_id, created_at, expires_at, idle_expires_at, last_used_at)
                VALUES ('s12', 'u12', 'ios-app', 1899990000, 1905000000, 1905000000, 1899990000)
                """,
                "INSERT INTO refresh_tokens (hash, session_id, created_at) VALUES ('\(hash)', 's12', 1899990000)",
            ] { try await t.executeRaw(sql) }
            let store = try await t.reopen(13)
            #expect(try await store.schemaVersion() == 13)
            let sessions = Conformance.manager(store, TestClock())
            let old = try #require(try await Conformance.session(store, id: "s12"))
            #expect(old.signIn == nil && old.userID == "u12" && old.clientID == "ios-app")
            let next = try await sessions.refresh(token)
            #expect(next.sessionID == "s12")
            #expect(try await sessions.verifyAccessToken(next.accessToken).scope == nil)
            let pair = try await sessions.issueTokens(userID: "u12", clientID: "portal", sessionID: "s13", signIn: Self.signIn)
            #expect(try await Conformance.session(store, id: pair.sessionID)?.signIn == Self.signIn)
            try await store.close()
        }
    }

    @Test("deleting a user deletes its one-time tokens (codes, OP sessions), not another user's or another app's", arguments: StoreKind.available)
    func deletingAUserDeletesItsOneTimeTokens(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            var config = SessionConfiguration.test(clock)
            config.policy.app = "app-a"
            let sessions = SessionManager(store: t.store, configuration: config)
            _ = try await sessions.ensureUser(id: "alice")
            _ = try await sessions.ensureUser(id: "bob")
            let now = clock.now
            func issue(_ purpose: OneTimeTokenPurpose, _ subject: String, app: String = "app-a") async throws -> OneTimeToken {
                try await t.store.transaction { tx in
                    try await tx.issueOneTimeToken(purpose: purpose, app: app, subject: subject, createdAt: now, expiresAt: now + 60)
                }
            }
            let code = try await issue(OneTimeTokenPurpose(rawValue: "authorization_code"), "alice")
            let op = try await issue(OneTimeTokenPurpose(rawValue: "op_session"), "alice")
            let bobs = try await issue(OneTimeTokenPurpose(rawValue: "op_session"), "bob")
            let otherApp = try await issue(OneTimeTokenPurpose(rawValue: "op_session"), "alice", app: "app-b")
            try await sessions.deleteUser(id: "alice")
            func find(_ token: OneTimeToken) async throws -> OneTimeTokenRecord? {
                try await t.store.transaction { tx in
                    try await tx.lookUpOneTimeToken(token.token, purpose: token.record.purpose, app: token.record.app)
                }
            }
            #expect(try await find(code) == nil)
            #expect(try await find(op) == nil)
            #expect(try await find(bobs) != nil)
            #expect(try await find(otherApp) != nil)
        }
    }
}
