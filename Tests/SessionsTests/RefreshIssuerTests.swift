import Foundation
import JOSE
import Synchronization
import Testing
@_spi(Testing) @testable import Sessions

/// `refresh(_:issuer:)`: a server of several apps on one store refreshes in one transaction,
/// the session's own app issuing (its audience, lifetimes and mode); on every store.
@Suite struct RefreshIssuerTests {
    /// Two apps on one store and key ring, as the server runs them, with different access
    /// lifetimes so that the issuing manager shows in `expires_in`.
    static func apps(_ store: any SessionStore, _ clock: TestClock) -> (a: SessionManager, b: SessionManager) {
        func app(_ id: String, access: Int64) -> SessionManager {
            var c = SessionConfiguration(issuer: "https://auth.test", audience: id, defaultClientID: id)
            c.clock = clock.tokenClock
            c.accessTokenLifetime = access
            return SessionManager(store: store, configuration: c)
        }
        return (app("app-a", access: 600), app("app-b", access: 3600))
    }

    /// `body` with a fresh store of `kind`, its clock and the two apps on it.
    func withApps(_ kind: StoreKind, _ body: (TestStore, TestClock, SessionManager, SessionManager) async throws -> Void) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let (a, b) = Self.apps(t.store, clock)
            try await body(t, clock, a, b)
        }
    }

    @Test(arguments: StoreKind.available)
    func theSessionsOwnAppIssuesInItsMode(kind: StoreKind) async throws {
        try await withApps(kind) { t, clock, a, b in
            let issuers = ["app-a": RefreshIssuer(a, mode: .rotate), "app-b": RefreshIssuer(b, mode: .keep)]
            let ofA = try await Conformance.firstPair(a, user: "alice")
            let ofB = try await Conformance.firstPair(b, user: "bob")
            clock.advance(10)

            // app-b's session, refreshed through app-a's manager: app-b issues and keeps the token.
            let kept = try await a.refresh(ofB.refreshToken) { issuers[$0] }
            #expect(kept.clientID == "app-b")
            #expect(kept.refreshToken == ofB.refreshToken)
            #expect(kept.expiresIn == 3600)
            let claims = try await b.verifyAccessToken(kept.accessToken)
            #expect(claims.audience == ["app-b"] && claims.subject == "bob" && claims.sessionID == ofB.sessionID)
            #expect(claims.expiresAt - claims.issuedAt == 3600)
            #expect(try await b.session(id: ofB.sessionID)?.lastUsedAt == clock.now)
            #expect(try await a.refresh(ofB.refreshToken) { issuers[$0] }.refreshToken == ofB.refreshToken)  // it lives on

            // app-a's session, through app-b's manager: app-a issues and rotates.
            let rotated = try await b.refresh(ofA.refreshToken) { issuers[$0] }
            #expect(rotated.clientID == "app-a" && rotated.expiresIn == 600)
            #expect(rotated.refreshToken != ofA.refreshToken)
            #expect(try await a.verifyAccessToken(rotated.accessToken).audience == ["app-a"])
            #expect(try await Conformance.record(t.store, of: ofA.refreshToken)?.usedAt == clock.now)
            #expect(try await a.refresh(rotated.refreshToken).clientID == "app-a")  // the successor refreshes
        }
    }

    @Test(arguments: StoreKind.available)
    func aRefusedIssuerSpendsAndTouchesNothing(kind: StoreKind) async throws {
        try await withApps(kind) { t, clock, a, b in
            let ofB = try await Conformance.firstPair(b)
            let before = try #require(try await b.session(id: ofB.sessionID))
            clock.advance(10)
            for mode in [RefreshMode.rotate, .keep] {
                let asked = Mutex<[String]>([])
                await #expect(throws: TokenError(.invalidGrant, "")) {
                    try await a.refresh(ofB.refreshToken) { client in
                        asked.withLock { $0.append(client) }
                        return client == "app-a" ? RefreshIssuer(a, mode: mode) : nil
                    }
                }
                #expect(asked.withLock { $0 } == ["app-b"])
            }
            #expect(try await Conformance.record(t.store, of: ofB.refreshToken)?.usedAt == nil)
            #expect(try await b.session(id: ofB.sessionID) == before)
            #expect(try await b.refresh(ofB.refreshToken).clientID == "app-b")  // still its app's to spend
        }
    }

    /// A spent token: a keeping app refuses it and leaves the session alone; a rotating app
    /// revokes the session (reuse).
    @Test(arguments: StoreKind.available)
    func aSpentTokenByMode(kind: StoreKind) async throws {
        try await withApps(kind) { t, clock, a, _ in
            let first = try await Conformance.firstPair(a)
            let next = try await a.refresh(first.refreshToken)
            clock.advance(3600)  // past the reuse grace
            await #expect(throws: TokenError(.refreshTokenReused, "")) {
                try await a.refresh(first.refreshToken) { _ in RefreshIssuer(a, mode: .keep) }
            }
            #expect(try await a.session(id: first.sessionID)?.revokedAt == nil)
            #expect(try await a.refreshKeepingToken(next.refreshToken).refreshToken == next.refreshToken)
            await #expect(throws: TokenError(.refreshTokenReused, "")) {
                try await a.refresh(first.refreshToken) { _ in RefreshIssuer(a, mode: .rotate) }
            }
            #expect(try await a.session(id: first.sessionID)?.revokedAt == clock.now)
        }
    }

    /// The point of it: one store transaction per refresh, in either mode, and no lookup before.
    @Test func oneTransactionPerRefresh() async throws {
        try await Harness.withStore(.sqlite) { t in
            let clock = TestClock()
            let counting = CountingStore(t.store)
            var c = SessionConfiguration(issuer: "https://auth.test", audience: "app-a", defaultClientID: "app-a")
            c.clock = clock.tokenClock
            let a = SessionManager(store: counting, configuration: c)
            let pair = try await Conformance.firstPair(a)
            for mode in [RefreshMode.keep, .rotate] {
                let before = counting.calls
                _ = try await a.refresh(pair.refreshToken) { _ in RefreshIssuer(a, mode: mode) }
                #expect(counting.calls.transactions - before.transactions == 1)
                #expect(counting.calls.reads - before.reads == 0)
            }
        }
    }

    /// Keeping the token signs access tokens too: the key records the longest lifetime it signed
    /// with (a retired key stays published that long).
    @Test func aKeepingRefreshRecordsTheKeysUse() async throws {
        try await withApps(.sqlite) { _, _, a, b in
            let ofA = try await Conformance.firstPair(a)
            #expect(try await a.keyRing.keys().first?.accessTokenLifetime == 600)
            _ = try await a.refresh(ofA.refreshToken) { _ in RefreshIssuer(b, mode: .keep) }
            #expect(try await a.keyRing.keys().first?.accessTokenLifetime == 3600)
        }
    }
}

/// A store that counts the transactions and reads it is asked for.
final class CountingStore: SessionStore {
    struct Calls: Sendable { var transactions = 0, reads = 0 }
    let inner: any SessionStore
    private let counts = Mutex(Calls())
    init(_ inner: any SessionStore) { self.inner = inner }
    var calls: Calls { counts.withLock { $0 } }

    func transaction<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T {
        counts.withLock { $0.transactions += 1 }
        return try await inner.transaction(body)
    }
    func read<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T {
        counts.withLock { $0.reads += 1 }
        return try await inner.read(body)
    }
    func schemaVersion() async throws -> Int { try await inner.schemaVersion() }
    func close() async throws { try await inner.close() }
}
