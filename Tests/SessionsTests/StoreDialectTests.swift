import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The two places where the stores' SQL differs by dialect, held to one behaviour on every store:
/// which sessions and keys `purge` removes (SQLite's idle expiry column may be NULL, PostgreSQL's
/// may not), and the order of `signingKeys()` (SQLite has a rowid, PostgreSQL does not).
@Suite struct StoreDialectTests {
    static let now: Int64 = 1_900_000_000

    static func sessionRecord(_ id: String, expires: Int64, idle: Int64, revoked: Int64? = nil) -> SessionRecord {
        SessionRecord(
            id: id, userID: "u", clientID: "c", createdAt: now - 100, expiresAt: expires, idleExpiresAt: idle,
            lastUsedAt: now - 100, revokedAt: revoked, revokeReason: revoked.map { _ in "logout" })
    }

    static func key(_ kid: String, created: Int64, retired: Int64?, publishUntil: Int64? = nil) -> SigningKeyRecord {
        SigningKeyRecord(
            keyID: kid, algorithm: "ES256", publicJWK: "{}", privateJWK: "{}", sealed: false, createdAt: created,
            retiredAt: retired, publishUntil: publishUntil ?? retired.map { $0 + 10 })
    }

    /// The store contract (SessionStoreTransaction.purge): a session goes when it is revoked or
    /// when `now` has reached either lifetime (`<=`, as `SessionRecord.isLive` says); a retired key
    /// goes when `now` has reached its publish-until time; each session's tokens go with it.
    @Test(arguments: StoreKind.available)
    func purgeRemovesExactlyTheDeadSessionsAndKeys(kind: StoreKind) async throws {
        let now = Self.now
        let sessions = [
            Self.sessionRecord("live", expires: now + 1, idle: now + 1),
            Self.sessionRecord("absolute-ends-now", expires: now, idle: now + 1),
            Self.sessionRecord("idle-ends-now", expires: now + 100, idle: now),
            Self.sessionRecord("revoked-but-in-time", expires: now + 100, idle: now + 100, revoked: now - 1),
            Self.sessionRecord("both-past", expires: now - 5, idle: now - 10),
        ]
        try await Harness.withStore(kind) { t in
            try await t.store.transaction { tx in
                try await tx.insertUser(UserRecord(id: "u", createdAt: now - 100))
                for (i, f) in sessions.enumerated() {
                    try await tx.insertSession(f)
                    try await tx.insertRefreshToken(RefreshTokenRecord(hash: "h\(i)a", sessionID: f.id, createdAt: now - 100))
                    try await tx.insertRefreshToken(RefreshTokenRecord(hash: "h\(i)b", sessionID: f.id, createdAt: now - 50))
                }
                _ = try await tx.insertSigningKey(Self.key("active", created: now - 300, retired: nil))
                _ = try await tx.insertSigningKey(Self.key("still-published", created: now - 200, retired: now - 100, publishUntil: now + 1))
                _ = try await tx.insertSigningKey(Self.key("unpublished-now", created: now - 150, retired: now - 100, publishUntil: now))
            }
            let counts = try await t.store.transaction { tx in try await tx.purge(now: now) }
            #expect(counts == PurgeCounts(sessions: 4, refreshTokens: 8, signingKeys: 1))
            let (kept, tokens, keys) = try await t.store.transaction { tx in
                var kept: [String] = []
                for f in sessions where try await tx.session(id: f.id, forUpdate: false) != nil { kept.append(f.id) }
                let tokens = (try await tx.refreshToken(hash: "h0a") != nil, try await tx.refreshToken(hash: "h1a") != nil)
                return (kept, tokens, try await tx.signingKeys().map(\.keyID).sorted())
            }
            #expect(kept == sessions.filter { $0.isLive(at: now) }.map(\.id) && kept == ["live"], "\(kind)")
            #expect(tokens == (true, false))
            #expect(keys == ["active", "still-published"])
        }
    }

    /// SQLite's idle expiry may be NULL in rows written before its migration filled it: such a
    /// session ends at its absolute lifetime, as if idle expiry equalled it.
    @Test func sqliteSessionWithoutIdleExpiryEndsAtItsAbsoluteLifetime() async throws {
        let now = Self.now
        try await Harness.withStore(.sqlite) { t in
            try await t.executeRaw("INSERT INTO users (id, created_at) VALUES ('u', \(now - 100))")
            try await t.executeRaw(
                """
                INSERT INTO sessions (id, user_id, client_id, created_at, expires_at, last_used_at, idle_expires_at) VALUES
                  ('null-idle-live', 'u', 'c', \(now - 100), \(now + 1), \(now - 100), NULL),
                  ('null-idle-over', 'u', 'c', \(now - 100), \(now), \(now - 100), NULL)
                """)
            let counts = try await t.store.transaction { tx in try await tx.purge(now: now) }
            #expect(counts.sessions == 1)
        }
    }

    /// Oldest first (`created_at`); among keys made in the same second, retired ones (earliest
    /// retirement first) before the active one; a full tie by key id, whatever the insertion order.
    @Test(arguments: StoreKind.available)
    func signingKeysComeInOneOrderOnEveryStore(kind: StoreKind) async throws {
        let now = Self.now
        try await Harness.withStore(kind) { t in
            let inserted = try await t.store.transaction { tx in
                var inserted: [Bool] = []
                for key in [
                    Self.key("d-active", created: now, retired: nil),
                    Self.key("c-same-second-later-retired", created: now, retired: now + 20),
                    Self.key("b-same-second-retired", created: now, retired: now + 10),
                    Self.key("z-tie", created: now - 10, retired: now - 5),
                    Self.key("y-tie", created: now - 10, retired: now - 5),
                    Self.key("old", created: now - 100, retired: now - 50),
                ] {
                    inserted.append(try await tx.insertSigningKey(key))
                }
                return inserted
            }
            #expect(inserted == Array(repeating: true, count: 6))
            let order = try await t.store.transaction { tx in try await tx.signingKeys().map(\.keyID) }
            #expect(order == ["old", "y-tie", "z-tie", "b-same-second-retired", "c-same-second-later-retired", "d-active"], "\(kind)")
        }
    }
}
