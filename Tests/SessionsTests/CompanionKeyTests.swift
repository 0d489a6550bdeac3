import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Companion keys (an OpenID Provider's RS256 key beside the default one): published with the
/// active key, rotated and retired with it, signing ID tokens and never access tokens. On every store.
@Suite struct CompanionKeyTests {
    static func manager(_ store: some SessionStore, _ clock: TestClock, companions: [JWSAlgorithm] = [.rs256]) -> SessionManager {
        var config = SessionConfiguration.test(clock)
        config.service.companionAlgorithms = companions
        return SessionManager(store: store, configuration: config)
    }

    @Test(
        "an RS256 companion beside the ES256 key: both in the JWKS, rotated and retired together; access tokens stay ES256",
        arguments: StoreKind.available)
    func companionRotatesWithTheActiveKey(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Self.manager(t.store, clock)
            let active = try await sessions.keyRing.activeKey()
            try await sessions.keyRing.ensureCompanions()
            try await sessions.keyRing.ensureCompanions()  // idempotent
            let keys = try await sessions.keyRing.keys()
            #expect(keys.count == 2)
            let companion = try #require(keys.first { $0.keyID != active.keyID })
            #expect(companion.algorithm == "RS256" && !companion.isActive && companion.retiredAt == nil)
            #expect(keys.filter(\.isActive).map(\.keyID) == [active.keyID])
            #expect(Set(try await sessions.keyRing.jwks().keys.compactMap(\.keyID)) == [active.keyID, companion.keyID])

            // Access tokens keep the default algorithm and key; ID tokens get the client's.
            let pair = try await Conformance.firstPair(sessions)
            let accessHeader = try #require(try UnverifiedToken(pair.accessToken).header)
            #expect(accessHeader.algorithm == .es256 && accessHeader.keyID == active.keyID && accessHeader.type == "at+jwt")
            for (alg, kid) in [(JWSAlgorithm.rs256, companion.keyID), (.es256, active.keyID)] {
                let idToken = try await sessions.keyRing.idTokenSigner(algorithm: alg).sign(ClaimSet(["sub": "alice"]))
                let header = try #require(try UnverifiedToken(idToken).header)
                #expect(header.algorithm == alg && header.keyID == kid && header.type == "JWT")
                let verified = try JWTVerifier(keys: try await sessions.keyRing.jwks(), options: VerifierOptions(type: "JWT")).verify(idToken)
                #expect(verified.claims["sub"] == "alice")
                // An ID token is no access token.
                #expect(throws: TokenError.self) { try AccessTokenVerifier(keys: JWKSet(keys: []), issuer: "x", audience: "y").verify(idToken) }
            }

            clock.advance(100)
            let next = try await sessions.keyRing.rotate()
            let after = try await sessions.keyRing.keys()
            #expect(after.count == 4)
            for old in after where [active.keyID, companion.keyID].contains(old.keyID) {
                #expect(old.retiredAt == clock.now && old.publishUntil == clock.now + 1800 + 60)
            }
            let newCompanion = try #require(after.first { $0.companion && $0.retiredAt == nil })
            #expect(newCompanion.algorithm == "RS256" && newCompanion.keyID != companion.keyID)
            #expect(after.filter(\.isActive).map(\.keyID) == [next.keyID])
            #expect(try await sessions.keyRing.key(for: .rs256).keyID == newCompanion.keyID)
            #expect(try await sessions.keyRing.jwks().keys.count == 4)
            // Once the old tokens expire, both old keys leave together.
            clock.advance(1800 + 60)
            #expect(try await sessions.purge().signingKeys == 2)
            #expect(Set(try await sessions.keyRing.jwks().keys.compactMap(\.keyID)) == [next.keyID, newCompanion.keyID])
        }
    }

    @Test(
        "a ring without companion algorithms makes none at rotation, and one on first use; revoking it makes another", arguments: StoreKind.available)
    func companionMadeOnFirstUse(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let plain = Self.manager(t.store, clock, companions: [])
            _ = try await plain.keyRing.activeKey()
            _ = try await plain.keyRing.rotate()
            #expect(try await plain.keyRing.keys().allSatisfy { !$0.companion })
            let made = try await plain.keyRing.key(for: .rs256)
            #expect(made.companion && made.algorithm == "RS256")
            #expect(try await plain.keyRing.key(for: .rs256).keyID == made.keyID)
            #expect(try await plain.keyRing.revoke(keyID: made.keyID) == nil)  // not the active key: no replacement
            let again = try await plain.keyRing.key(for: .rs256)
            #expect(again.keyID != made.keyID && again.companion)
            #expect(try await plain.keyRing.jwks().keys.compactMap(\.keyID).contains(made.keyID) == false)
        }
    }
}
