import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The published JWKS document a server serves (`KeyRing.publishedJWKSDocument`): kept like the
/// verifier's keys, so that a rotation or revocation by another process reaches it within
/// `publishedKeysCacheSeconds` of the configuration's clock, and one made here at once; on every store.
@Suite struct PublishedJWKSTests {
    /// The key ids of a published document, in its order.
    static func kids(_ document: [UInt8]) throws -> [String] {
        try JWKSet(json: String(decoding: document, as: UTF8.self)).keys.compactMap(\.keyID)
    }

    /// A manager that keeps the published keys `seconds` on `clock`.
    static func manager(_ t: TestStore, _ clock: TestClock, keeping seconds: Double) -> SessionManager {
        var config = SessionConfiguration.test(clock)
        config.publishedKeysCacheSeconds = seconds
        return SessionManager(store: t.store, configuration: config)
    }

    @Test(arguments: StoreKind.available)
    func aRotationAndARevocationElsewhereArePublishedWithinTheBoundAndNotBefore(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let server = Self.manager(t, clock, keeping: 5)
            let other = Conformance.manager(t.store, clock)  // another instance on the same store
            let k1 = try await server.keyRing.activeKey().keyID
            let first = try await server.keyRing.publishedJWKSDocument()
            #expect(try Self.kids(first) == [k1])
            // The bytes a server served before the document was kept: the same encoding.
            #expect(try first == JSONValue(parsing: try await server.keyRing.jwks().jsonString()).jsonBytes)

            let k2 = try await other.keyRing.rotate().keyID
            #expect(try await server.keyRing.publishedJWKSDocument() == first)
            clock.advance(4)
            #expect(try await server.keyRing.publishedJWKSDocument() == first, "not before the cache is stale")
            clock.advance(1)
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k2, k1])

            _ = try await other.keyRing.revoke(keyID: k1)
            clock.advance(4)
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k2, k1], "not before the cache is stale")
            clock.advance(1)
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k2])
        }
    }

    @Test(arguments: StoreKind.available)
    func aRotationOrRevocationHereIsPublishedAtOnce(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let server = Self.manager(t, clock, keeping: 60)
            let k1 = try await server.keyRing.activeKey().keyID
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k1])
            let k2 = try await server.keyRing.rotate().keyID
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k2, k1])
            let k3 = try #require(try await server.keyRing.revoke(keyID: k2)).keyID
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k3, k1])
        }
    }

    /// A clock set back makes the kept document stale (it cannot tell how old it is); with 0 the
    /// store is read for every call.
    @Test(arguments: StoreKind.available)
    func aClockSetBackOrNoCacheReadsTheStore(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let server = Self.manager(t, clock, keeping: 5)
            let uncached = Self.manager(t, clock, keeping: 0)
            let other = Conformance.manager(t.store, clock)
            let k1 = try await server.keyRing.activeKey().keyID
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k1])
            #expect(try Self.kids(try await uncached.keyRing.publishedJWKSDocument()) == [k1])
            let k2 = try await other.keyRing.rotate().keyID
            #expect(try Self.kids(try await uncached.keyRing.publishedJWKSDocument()) == [k2, k1])
            clock.advance(-1)
            #expect(try Self.kids(try await server.keyRing.publishedJWKSDocument()) == [k2, k1])
        }
    }
}
