import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The signing-key ring: rotation, JWKS retention, sealing at rest, on every store.
@Suite struct KeyRingTests {
    @Test(arguments: StoreKind.available)
    func rotationKeepsRetiredKeysPublishedUntilTheirTokensExpire(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)  // access tokens 1800 s, leeway 60 s
            let before = try await Conformance.firstPair(sessions)
            let k1 = try UnverifiedToken(before.accessToken).header?.keyID
            clock.advance(100)
            let k2 = try await sessions.keyRing.rotate().keyID
            #expect(k1 != nil && k1 != k2)
            let after = try await sessions.issueTokens(userID: "alice")
            #expect(try UnverifiedToken(after.accessToken).header?.keyID == k2)

            // Both keys are published; the token signed by the retired key still verifies.
            #expect(Set(try await sessions.keyRing.jwks().keys.compactMap(\.keyID)) == [k1!, k2])
            _ = try await sessions.verifyAccessToken(before.accessToken)
            let active = try await sessions.keyRing.keys().filter(\.isActive)
            #expect(active.map(\.keyID) == [k2])

            // The retired key's last token expires at 100 + 1800 (+ 60 s leeway): it stays until then.
            clock.advance(1800 + 60 - 1)
            #expect(Set(try await sessions.keyRing.jwks().keys.compactMap(\.keyID)) == [k1!, k2])
            #expect(try await sessions.purge().signingKeys == 0)
            clock.advance(1)
            #expect(try await sessions.keyRing.jwks().keys.compactMap(\.keyID) == [k2])
            #expect(try await sessions.purge().signingKeys == 1)
            #expect(try await sessions.keyRing.keys().map(\.keyID) == [k2])
        }
    }

    @Test(arguments: StoreKind.available)
    func privateKeysCanBeSealedWithAMasterKey(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            var config = SessionConfiguration.test(clock)
            config.masterKey = [UInt8](repeating: 0x42, count: 32)
            let sealed = SessionManager(store: t.store, configuration: config)
            let pair = try await Conformance.firstPair(sealed)
            let record = try #require(try await t.store.transaction { tx in try await tx.activeSigningKey() })
            #expect(record.sealed)
            #expect(!record.privateJWK.contains("\"d\""))  // no private member in the clear
            #expect((try? JWK(json: record.privateJWK)) == nil)
            _ = try await sealed.verifyAccessToken(pair.accessToken)

            // Without the master key, or with another one, nothing can be signed.
            let none = Conformance.manager(t.store, clock)
            #expect(await Conformance.code { try await none.issueTokens(userID: "alice") } == "invalid_configuration")
            config.masterKey = [UInt8](repeating: 0x43, count: 32)
            let wrong = SessionManager(store: t.store, configuration: config)
            #expect(await Conformance.code { try await wrong.refresh(pair.refreshToken) } == "invalid_configuration")
            // The failed attempts spent nothing.
            #expect(try await Conformance.record(t.store, of: pair.refreshToken)?.usedAt == nil)
        }
    }

    @Test(arguments: [JWSAlgorithm.edDSA, .rs256, .es384])
    func otherSigningAlgorithms(alg: JWSAlgorithm) async throws {
        try await Harness.withStore(.sqlite) { t in
            let clock = TestClock()
            var config = SessionConfiguration.test(clock)
            config.signingAlgorithm = alg
            let sessions = SessionManager(store: t.store, configuration: config)
            let pair = try await Conformance.firstPair(sessions)
            #expect(try UnverifiedToken(pair.accessToken).header?.algorithm == alg)
            _ = try await sessions.verifyAccessToken(pair.accessToken)
        }
    }

    @Test func symmetricAlgorithmsAreRefused() {
        var config = SessionConfiguration.test(TestClock())
        config.signingAlgorithm = .hs256
        #expect(throws: TokenError(.invalidConfiguration, "")) { try config.validate() }
    }
}
