import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

/// The verified-token cache behind a key source: hits while the key set stays, an empty cache when
/// a remote JWKS brings other keys, so a token of a key that left the JWKS stops verifying.
@Suite struct CachingVerifierTests {
    @Test func aRepeatedTokenIsAnsweredFromTheCache() async throws {
        try await withStandIn { standIn, transport in
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport, clock: ManualClock().clock)
            let verifier = CachingVerifier(source: .remote(jwks), options: VerifierOptions(audiences: [standIn.settings.googleClientID]))
            let token = try standIn.idToken("google")
            _ = try await verifier.verify(token)
            let again = try await verifier.verify(token)
            #expect(again.keyID == standIn.currentKeyID)
            #expect(verifier.cache?.statistics.hits == 1)
            #expect(standIn.requestCount(path: "/oauth2/v3/certs") == 1)
        }
    }

    @Test func newKeysStartAnEmptyCacheAndARemovedKeyStopsVerifying() async throws {
        var settings = ProviderStandIn.Settings()
        settings.jwksMaxAge = 60
        try await withStandIn(settings) { standIn, transport in
            let clock = ManualClock()
            let jwks = try RemoteJWKS(
                url: standIn.googleJWKSURL, transport: transport, clock: clock.clock,
                policy: RemoteJWKS.Policy(minimumCacheAge: 60))
            let verifier = CachingVerifier(source: .remote(jwks), options: VerifierOptions(audiences: [standIn.settings.googleClientID]))
            let old = try standIn.idToken("google")
            _ = try await verifier.verify(old)
            let before = verifier.cache
            try standIn.rotateKeys()  // the JWKS now publishes only the new key
            clock.advance(61)  // the cached JWKS is stale: the next verification refetches
            let fresh = try standIn.idToken("google")
            _ = try await verifier.verify(fresh)
            #expect(verifier.cache !== before)
            // The old token was cached under the old keys; under the new set it is refused.
            #expect(await errorCode { _ = try await verifier.verify(old) } == "key_not_found")
        }
    }

    @Test func fixedKeysKeepOneCache() async throws {
        var key = try JWK.generate(curve: .p256)
        key.keyID = "fixed"
        let token = try JWTSigner(key: key).sign(["sub": "x"])
        let verifier = CachingVerifier(source: .keys(try JWKSet(keys: [key.publicKey])), options: VerifierOptions())
        for _ in 0..<3 { _ = try await verifier.verify(token) }
        #expect(verifier.cache?.statistics.hits == 2)
    }
}
