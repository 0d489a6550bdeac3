import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

@Suite struct CustomJWTProviderTests {
    func config(_ standIn: ProviderStandIn) -> CustomJWTProvider.Configuration {
        CustomJWTProvider.Configuration(name: "acme", issuers: [standIn.settings.customIssuer], audiences: [standIn.settings.customAudience])
    }

    @Test func claimPathMapping() async throws {
        try await withStandIn { standIn, transport in
            var c = config(standIn)
            c.mapping[.name] = try ClaimPath("user_data.name")
            c.mapping[.email] = try ClaimPath("user_data.email")
            c.mapping[.emailVerified] = try ClaimPath("user_data.verified")
            let provider = try CustomJWTProvider(configuration: c, keys: .remote(try RemoteJWKS(url: standIn.customJWKSURL, transport: transport)))
            let identity = try await provider.verify(token: try standIn.idToken("custom"))
            #expect(
                identity
                    == Identity(
                        provider: "acme", subject: "user-42", issuer: standIn.settings.customIssuer,
                        email: "standin@example.com", emailVerified: true,
                        name: "Stand In", rawClaims: identity.rawClaims))
            #expect(identity.rawClaims["user_data"]?.objectValue?["name"] == .string("Stand In"))
        }
    }

    @Test func requiredFieldsAndRejections() async throws {
        try await withStandIn { standIn, transport in
            var c = config(standIn)
            c.requiredFields = [.email]
            let keys = KeySource.remote(try RemoteJWKS(url: standIn.customJWKSURL, transport: transport))
            let provider = try CustomJWTProvider(configuration: c, keys: keys)
            await #expect(throws: TokenError(.missingClaim, "", claim: "email")) {
                _ = try await provider.verify(token: try standIn.idToken("custom"))
            }
            c.mapping[.email] = try ClaimPath("user_data.email")
            let mapped = try CustomJWTProvider(configuration: c, keys: keys)
            #expect(try await mapped.verify(token: try standIn.idToken("custom")).email == "standin@example.com")
            #expect(await errorCode { _ = try await mapped.verify(token: try standIn.idToken("custom", ["aud": "other"])) } == "invalid_audience")
            #expect(
                await errorCode { _ = try await mapped.verify(token: try standIn.idToken("custom", ["iss": "https://other"])) } == "invalid_issuer")
            #expect(await errorCode { _ = try await mapped.verify(token: try standIn.idToken("custom", ["exp": .null])) } == "missing_claim")
            #expect(
                await errorCode { _ = try await mapped.verify(token: try standIn.idToken("custom", ["user_data": .object(["email": 5])])) }
                    == "invalid_claim")
        }
    }

    @Test func hmacSecretAndAlgorithms() async throws {
        let secret = try JWK(hmacSecret: Array("a-32-byte-secret-for-hs256-tests".utf8))
        let now = Int64(Date().timeIntervalSince1970)
        let token = try JWTSigner(key: secret, algorithm: .hs256).sign([
            "iss": "https://i", "aud": "a", "sub": "u1", "exp": .int(now + 60), "iat": .int(now),
        ])
        let ok = try CustomJWTProvider(
            configuration: .init(issuers: ["https://i"], audiences: ["a"], algorithms: [.hs256]),
            keys: .keys(try JWKSet(keys: [secret])))
        #expect(try await ok.verify(token: token).subject == "u1")
        #expect(try await ok.verify(token: token).provider == "jwt")
        #expect(try await ok.verify(token: token).issuer == "https://i")
        let narrowed = try CustomJWTProvider(
            configuration: .init(issuers: ["https://i"], audiences: ["a"], algorithms: [.hs512]),
            keys: .keys(try JWKSet(keys: [secret])))
        #expect(await errorCode { _ = try await narrowed.verify(token: token) } == "algorithm_not_allowed")
    }

    @Test func configurationChecks() throws {
        let keys = KeySource.keys(try JWKSet(keys: []))
        #expect(throws: TokenError(.invalidConfiguration, "")) {
            try CustomJWTProvider(configuration: .init(issuers: [], audiences: ["a"]), keys: keys)
        }
        #expect(throws: TokenError(.invalidConfiguration, "")) {
            try CustomJWTProvider(configuration: .init(issuers: ["i"], audiences: []), keys: keys)
        }
        // A custom provider may not take a built-in provider's name.
        for name in ["google", "apple", "facebook", "Google"] {
            #expect(throws: TokenError(.invalidConfiguration, "")) {
                try CustomJWTProvider(configuration: .init(name: name, issuers: ["i"], audiences: ["a"]), keys: keys)
            }
        }
        #expect(throws: TokenError(.invalidConfiguration, "")) { try ClaimPath("a..b") }
        #expect(throws: TokenError(.invalidConfiguration, "")) { try ClaimPath("") }
        #expect(try ClaimPath("user_data.name").value(in: ["user_data": .object(["name": "x"])]) == .string("x"))
        #expect(try ClaimPath("user_data.name.first").value(in: ["user_data": .object(["name": "x"])]) == nil)
    }
}
