import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Schema migrations: from every earlier version, rows kept; a newer store refused. On every store.
@Suite struct MigrationTests {
    static var cases: [(StoreKind, Int)] {
        StoreKind.available.flatMap { kind in (0..<SessionSchema.latestVersion).map { (kind, $0) } }
    }

    /// The refresh token of the fixture session (its hash is what the fixture stores).
    static let fixtureToken = Base64URL.encode([UInt8](repeating: 0xA5, count: 32))

    /// Rows as schema version 1 knows them (from version 3 on, with the idle expiry PostgreSQL requires;
    /// from version 5 on, with a device). Before version 7 sessions lived in the `families` table.
    static func fixture(key: JWK, version: Int = 1) throws -> [String] {
        let idle = version >= 3 ? ", idle_expires_at" : ""
        let idleValue = version >= 3 ? ", 1905000000" : ""
        let device = version >= 5 ? ", device" : ""
        let deviceValue = version >= 5 ? ", '{\"platform\":\"ios\"}'" : ""
        let hash = Base64URL.encode(SHA2.sha256(Array(fixtureToken.utf8)))
        return [
            "INSERT INTO users (id, created_at) VALUES ('u-old', 1899990000), ('u-other', 1899990001)",
            """
            INSERT INTO identities (provider, subject, user_id, email, created_at) VALUES
              ('google', 'g-old', 'u-old', 'old@example.com', 1899990000), ('apple', 'a-other', 'u-other', NULL, 1899990001)
            """,
            """
            INSERT INTO \(version >= 7 ? "sessions" : "families") (id, user_id, client_id, created_at, expires_at, last_used_at\(idle)\(device)) VALUES
              ('fam-old', 'u-old', 'ios-app', 1899990000, 1905000000, 1899990000\(idleValue)\(deviceValue)),
              ('fam-other', 'u-other', 'web', 1899990001, 1905000000, 1899990001\(idleValue)\(deviceValue))
            """,
            """
            INSERT INTO refresh_tokens (hash, \(version >= 7 ? "session_id" : "family_id"), created_at) VALUES
              ('\(hash)', 'fam-old', 1899990000), ('other-hash', 'fam-other', 1899990001)
            """,
            """
            INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk, created_at, active) VALUES
              ('fixture-key', 'ES256', '\(try key.publicKey.jsonString())', '\(try key.jsonString(includePrivate: true))', 1899990000, TRUE)
            """,
        ]
    }

    @Test(arguments: cases)
    func migratingFromAnEarlierVersionKeepsEveryRow(kind: StoreKind, from version: Int) async throws {
        try await Harness.withStore(kind, migratingTo: version) { t in
            #expect(try await t.store.schemaVersion() == version)
            var key = try JWK.generate(curve: .p256)
            key.keyID = "fixture-key"
            key.algorithm = "ES256"
            if version >= 1 { for sql in try Self.fixture(key: key, version: version) { try await t.executeRaw(sql) } }

            // Step by step through every intermediate version, then to the latest.
            for step in (version + 1)...SessionSchema.latestVersion {
                let store = try await t.reopen(step)
                #expect(try await store.schemaVersion() == step)
                try await store.close()
            }
            let store = try await t.reopen(nil)
            #expect(try await store.schemaVersion() == SessionSchema.latestVersion)
            guard version >= 1 else { return try await store.close() }

            let clock = TestClock(1_900_000_000)
            let sessions = Conformance.manager(store, clock)
            #expect(try await sessions.user(id: "u-old") == UserRecord(id: "u-old", createdAt: 1899990000))
            #expect(try await sessions.user(id: "u-other") != nil)
            let identity = try #require(try await store.transaction { tx in try await tx.identity(provider: "google", subject: "g-old") })
            #expect(identity.userID == "u-old" && identity.email == "old@example.com")
            #expect(try await sessions.identities(of: "u-other").map(\.subject) == ["a-other"])
            let session = try #require(try await Conformance.session(store, id: "fam-old"))
            #expect(session.idleExpiresAt == 1905000000)  // back-filled: no session logged out by the upgrade
            #expect(session.userID == "u-old" && session.clientID == "ios-app" && session.expiresAt == 1905000000)
            #expect(session.device == (version >= 5 ? #"{"platform":"ios"}"# : nil))
            #expect(try await Conformance.session(store, id: "fam-other")?.clientID == "web")
            #expect(try await sessions.sessions(of: "u-other").map(\.id) == ["fam-other"])
            // Each refresh token still points at its session (the column was family_id before version 7).
            #expect(try await store.transaction { tx in try await tx.refreshToken(hash: "other-hash") }?.sessionID == "fam-other")
            // The old session still works, signed by the old key.
            let next = try await sessions.refresh(Self.fixtureToken)
            #expect(next.sessionID == "fam-old" && next.userID == "u-old")
            #expect(try UnverifiedToken(next.accessToken).header?.keyID == "fixture-key")
            #expect(try await sessions.keyRing.jwks().keys.compactMap(\.keyID) == ["fixture-key"])
            try await store.close()
        }
    }

    @Test(arguments: StoreKind.available)
    func aStoreNewerThanTheCodeIsRefused(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let next = SessionSchema.latestVersion + 1
            try await t.executeRaw("INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(next), 'from_the_future', 0)")
            #expect(await Conformance.code { try await t.reopen(nil) } == "store_too_new")
        }
    }

    @Test(arguments: StoreKind.available)
    func aStoreOfAnotherProgramIsRefused(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            try await t.executeRaw("UPDATE schema_migrations SET name = 'something_else' WHERE version = 1")
            #expect(await Conformance.code { try await t.reopen(nil) } == "invalid_configuration")
        }
    }

    @Test func pendingStepsPlan() throws {
        let steps = SessionSchema.stepNames.enumerated().map { SchemaMigration(version: $0.offset + 1, name: $0.element, statements: []) }
        #expect(try SessionSchema.pendingSteps(applied: [], available: steps).map(\.version) == Array(1...SessionSchema.stepNames.count))
        #expect(try SessionSchema.pendingSteps(applied: [(1, "create_core_tables")], available: steps, upTo: 2).map(\.version) == [2])
        #expect(throws: TokenError(.storeTooNew, "")) {
            try SessionSchema.pendingSteps(applied: [(1, "create_core_tables"), (SessionSchema.latestVersion + 1, "x")], available: steps)
        }
    }
}
