import Foundation
import Identity
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Hostile refresh tokens, access tokens and ids handed to Sessions, on every store:
/// each is refused with its documented code, and the store is left exactly as it was (no token
/// spent, no session revoked, no user created or deleted). SQL text is data: it finds nothing, and
/// where it is a legitimate value (a provider's subject) it is stored literally and touches no
/// other row.
@Suite struct SessionsHostileInputTests {
    /// Two signed-in users; everything a hostile call could change, read back through the store.
    struct Fixture {
        let t: TestStore
        let clock: TestClock
        let sessions: SessionManager
        let alice: SessionManager.SignIn
        let bob: SessionManager.SignIn

        struct Snapshot: Equatable {
            var users: [UserRecord?]
            var identities: [[IdentityRecord]]
            var sessions: [[SessionRecord]]
            var refreshTokens: [RefreshTokenRecord?]
            var keys: [SigningKeyRecord]
        }

        func snapshot() async throws -> Snapshot {
            let ids = [alice.userID, bob.userID]
            let hashes = [alice.tokens.refreshToken, bob.tokens.refreshToken].map { Base64URL.encode(SHA2.sha256(Array($0.utf8))) }
            return try await t.store.transaction { tx in
                var s = Snapshot(users: [], identities: [], sessions: [], refreshTokens: [], keys: try await tx.signingKeys())
                for id in ids {
                    s.users.append(try await tx.user(id: id))
                    s.identities.append(try await tx.identities(userID: id))
                    s.sessions.append(try await tx.sessions(userID: id))
                }
                for h in hashes { s.refreshTokens.append(try await tx.refreshToken(hash: h)) }
                return s
            }
        }
    }

    static func fixture(_ t: TestStore) async throws -> Fixture {
        let clock = TestClock()
        let sessions = Conformance.manager(t.store, clock)
        let alice = try await sessions.signIn(with: Conformance.identity("google", "alice-google", email: "alice@example.com"))
        let bob = try await sessions.signIn(with: Conformance.identity("google", "bob-google"))
        clock.advance(1)
        return Fixture(t: t, clock: clock, sessions: sessions, alice: alice, bob: bob)
    }

    /// A token pair for the same identity from another store (another issuer, another key ring).
    static func foreignTokens(_ kind: StoreKind, clock: TestClock) async throws -> TokenPair {
        try await Harness.withStore(kind) { other in
            try await Conformance.manager(other.store, clock).signIn(with: Conformance.identity("google", "alice-google")).tokens
        }
    }

    static let megabyte = String(repeating: "A", count: 1 << 20)

    // MARK: refresh tokens

    @Test(arguments: StoreKind.available)
    func hostileRefreshTokensAreRefusedAndChangeNothing(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let f = try await Self.fixture(t)
            let token = f.alice.tokens.refreshToken
            let foreign = try await Self.foreignTokens(kind, clock: f.clock)
            var nul = Array(token.unicodeScalars)
            nul[20] = "\u{0}"
            // (value, refresh(), revoke() and introspect()'s reason): a value shaped like a refresh
            // token is looked up (and unknown); anything else is read as an access token (malformed).
            let cases: [(String, String, String, String)] = [
                ("empty", "", "invalid_refresh_token", "malformed"),
                ("1 MB", Self.megabyte, "invalid_refresh_token", "malformed"),
                ("NUL inside", String(String.UnicodeScalarView(nul)), "invalid_refresh_token", "malformed"),
                ("NUL after", token + "\u{0}", "invalid_refresh_token", "malformed"),
                ("NUL alone", "\u{0}", "invalid_refresh_token", "malformed"),
                ("SQL", "' OR 1=1 --", "invalid_refresh_token", "malformed"),
                ("SQL statement", "x' OR '1'='1'; DELETE FROM refresh_tokens; --", "invalid_refresh_token", "malformed"),
                ("Bearer prefix", "Bearer " + token, "invalid_refresh_token", "malformed"),
                ("white space", " " + token + "\n", "invalid_refresh_token", "malformed"),
                ("quotes", "\"" + token + "\"", "invalid_refresh_token", "malformed"),
                ("another store's token", foreign.refreshToken, "invalid_refresh_token", "invalid_refresh_token"),
                (
                    "a token of the right shape nobody issued", Base64URL.encode([UInt8](repeating: 0, count: 32)), "invalid_refresh_token",
                    "invalid_refresh_token"
                ),
            ]
            let before = try await f.snapshot()
            for (what, value, refreshCode, otherCode) in cases {
                #expect(await Conformance.code { try await f.sessions.refresh(value) } == refreshCode, "refresh: \(what)")
                #expect(await Conformance.code { try await f.sessions.revoke(value) } == otherCode, "revoke: \(what)")
                let i = try await f.sessions.introspect(value)
                #expect(!i.active && i.response.map(\.key) == ["active"] && i.reason?.code.rawValue == otherCode, "introspect: \(what)")
            }
            #expect(try await f.snapshot() == before)
            // None of the variants spent the real token: it still rotates, in its own session.
            let next = try await f.sessions.refresh(token)
            #expect(next.sessionID == f.alice.tokens.sessionID)
        }
    }

    @Test func bearerPrefixAndWhiteSpaceGetAHint() async throws {
        try await Harness.withStore(.sqlite) { t in
            let f = try await Self.fixture(t)
            for value in ["Bearer " + f.alice.tokens.refreshToken, f.alice.tokens.refreshToken + "\n"] {
                do {
                    _ = try await f.sessions.refresh(value)
                    Issue.record("accepted")
                } catch let e as TokenError {
                    #expect(e.code == .invalidRefreshToken)
                    #expect(e.message.contains("remove the"), "\(e.message)")
                    #expect(!e.message.contains(f.alice.tokens.refreshToken))  // never the token itself
                }
            }
        }
    }

    // MARK: access tokens

    @Test(arguments: StoreKind.available)
    func hostileAccessTokensAreRefusedAndChangeNothing(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let f = try await Self.fixture(t)
            let access = f.alice.tokens.accessToken
            let foreign = try await Self.foreignTokens(kind, clock: f.clock)
            // A token signed by our own key for alice, naming bob's session: not alice's session.
            let record = try #require(try await t.store.transaction { tx in try await tx.activeSigningKey() })
            var claims = try #require(try UnverifiedToken(access).claims)
            claims["sid"] = .string(f.bob.tokens.sessionID)
            var signer = try JWTSigner(key: try JWK(json: record.privateJWK), keyID: record.keyID)
            signer.type = "at+jwt"
            let otherSession = try signer.sign(claims)
            #expect(try await f.sessions.verifyAccessToken(otherSession, checkSession: false).subject == f.alice.userID)  // well signed
            let parts = access.split(separator: ".", omittingEmptySubsequences: false).map(String.init)

            let cases: [(String, String, String)] = [
                ("empty", "", "malformed"),
                ("1 MB", Self.megabyte, "malformed"),
                ("1 MB of token shape", access + String(repeating: "A", count: 1 << 20), "malformed"),
                ("NUL in the payload", parts[0] + "." + parts[1].prefix(10) + "\u{0}" + parts[1].dropFirst(10) + "." + parts[2], "malformed"),
                ("NUL after", access + "\u{0}", "malformed"),
                ("SQL", "' OR 1=1 --", "malformed"),
                ("SQL as a kid", Self.unsigned(header: #"{"alg":"ES256","kid":"' OR 1=1 --","typ":"at+jwt"}"#, payload: parts[1]), "key_not_found"),
                ("Bearer prefix", "Bearer " + access, "malformed"),
                ("another store's access token", foreign.accessToken, "key_not_found"),
                ("another session's sid", otherSession, "session_revoked"),
            ]
            let before = try await f.snapshot()
            for (what, value, code) in cases {
                #expect(await Conformance.code { try await f.sessions.verifyAccessToken(value) } == code, "verify: \(what)")
                let i = try await f.sessions.introspect(value)
                #expect(!i.active && i.response.map(\.key) == ["active"] && i.reason?.code.rawValue == code, "introspect: \(what)")
                // revoke refuses too: bob's session must survive a token of alice's naming it.
                #expect(await Conformance.code { try await f.sessions.revoke(value) } == code, "revoke: \(what)")
            }
            #expect(try await f.snapshot() == before)
            #expect(try await f.sessions.verifyAccessToken(access).subject == f.alice.userID)
        }
    }

    static func unsigned(header: String, payload: some StringProtocol) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + payload + "." + Base64URL.encode([UInt8](repeating: 1, count: 64))
    }

    // MARK: user and identity ids

    static let sqlTexts = ["' OR 1=1 --", "alice'; DROP TABLE users; --", "\" OR \"\"=\"", "1; DELETE FROM sessions", "%", "_", "*"]

    @Test(arguments: StoreKind.available)
    func sqlTextAsAnIDFindsNothingAndChangesNothing(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let f = try await Self.fixture(t)
            let before = try await f.snapshot()
            for sql in Self.sqlTexts {
                #expect(await Conformance.code { try await f.sessions.deleteUser(id: sql) } == "user_not_found", "\(sql)")
                #expect(await Conformance.code { try await f.sessions.issueTokens(userID: sql) } == "user_not_found", "\(sql)")
                #expect(
                    await Conformance.code { try await f.sessions.link(Conformance.identity("apple", "a-1"), to: sql) } == "user_not_found", "\(sql)")
                #expect(try await f.sessions.user(id: sql) == nil)
                #expect(try await f.sessions.identities(of: sql).isEmpty)
                #expect(try await f.sessions.sessions(of: sql).isEmpty)
                try await f.sessions.revokeSession(id: sql)
            }
            #expect(try await f.snapshot() == before)
            #expect(try await f.sessions.identities(of: f.alice.userID).count == 1)  // the apple identity was never linked
        }
    }

    @Test(arguments: StoreKind.available)
    func sqlTextIsStoredAsData(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let f = try await Self.fixture(t)
            let before = try await f.snapshot()
            for sql in Self.sqlTexts {
                // A provider subject is the provider's to choose: stored literally, its own user.
                let signIn = try await f.sessions.signIn(with: Conformance.identity("google", sql))
                #expect(signIn.created && signIn.userID != f.alice.userID && signIn.userID != f.bob.userID)
                #expect(try await f.sessions.identities(of: signIn.userID).map(\.subject) == [sql])
                #expect(try await f.sessions.signIn(with: Conformance.identity("google", sql)).userID == signIn.userID)
                try await f.sessions.deleteUser(id: signIn.userID)
                // A user id the application chose.
                #expect(try await f.sessions.ensureUser(id: sql).created)
                #expect(try await f.sessions.user(id: sql)?.id == sql)
                try await f.sessions.deleteUser(id: sql)
                #expect(try await f.sessions.user(id: sql) == nil)
            }
            #expect(try await f.snapshot() == before)
        }
    }

    @Test(arguments: StoreKind.available)
    func emptyLongAndControlCharacterIDsAreRefusedAlikeOnEveryStore(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let f = try await Self.fixture(t)
            let before = try await f.snapshot()
            let alice = f.alice.userID
            let bad = ["", "\u{0}", alice + "\u{0}", "a\u{0}b", "line\nbreak", "esc\u{1B}[31m", String(repeating: "u", count: 256), Self.megabyte]
            for id in bad {
                let shown = id.count > 40 ? "\(id.utf8.count) bytes" : id.debugDescription
                #expect(await Conformance.code { try await f.sessions.ensureUser(id: id) } == "invalid_input", "ensureUser \(shown)")
                // Looked up, such an id finds nothing, on SQLite and on PostgreSQL alike (never store_unavailable).
                #expect(await Conformance.code { try await f.sessions.deleteUser(id: id) } == "user_not_found", "deleteUser \(shown)")
                #expect(await Conformance.code { try await f.sessions.issueTokens(userID: id) } == "user_not_found", "issueTokens \(shown)")
                #expect(
                    await Conformance.code { try await f.sessions.link(Conformance.identity("apple", "a-2"), to: id) } == "user_not_found",
                    "link \(shown)")
                #expect(try await f.sessions.user(id: id) == nil)
                #expect(try await f.sessions.identities(of: id).isEmpty)
                #expect(try await f.sessions.sessions(of: id).isEmpty)
                try await f.sessions.revokeSession(id: id)
                // As identity fields and client ids: invalid_input.
                #expect(
                    await Conformance.code { try await f.sessions.signIn(with: Conformance.identity("google", id)) } == "invalid_input",
                    "subject \(shown)")
                #expect(
                    await Conformance.code { try await f.sessions.signIn(with: Conformance.identity(id, "s-1")) } == "invalid_input",
                    "provider \(shown)")
                #expect(
                    await Conformance.code { try await f.sessions.link(Conformance.identity("apple", id), to: alice) } == "invalid_input",
                    "link subject \(shown)")
                #expect(
                    await Conformance.code { try await f.sessions.issueTokens(userID: alice, clientID: id) } == "invalid_input", "client id \(shown)")
            }
            #expect(try await f.snapshot() == before)
        }
    }
}
