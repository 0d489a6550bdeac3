import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

@Suite struct AppleProviderTests {
    // FIPS 180-2 Appendix B.1: SHA-256("abc").
    static let abcSHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    func provider(
        _ standIn: ProviderStandIn, _ transport: any HTTPTransport, withKey: Bool = true,
        lifetime: TimeInterval = 3600
    ) throws -> AppleProvider {
        let key = AppleProvider.ClientSecretKey(
            teamID: standIn.settings.appleTeamID, keyID: standIn.settings.appleKeyID,
            privateKey: standIn.appleClientSecretKey, lifetime: lifetime)
        var config = AppleProvider.Configuration(clientIDs: [standIn.settings.appleClientID], clientSecretKey: withKey ? key : nil)
        config.jwksURL = standIn.appleJWKSURL
        config.tokenURL = standIn.appleTokenURL
        config.revokeURL = standIn.appleRevokeURL
        return try AppleProvider(configuration: config, transport: transport)
    }

    @Test func validIDTokenWithStringBooleans() async throws {
        try await withStandIn { standIn, transport in
            let identity = try await provider(standIn, transport).verify(idToken: try standIn.idToken("apple"))
            #expect(identity.provider == "apple")
            #expect(identity.subject == "001234.standin0123456789abcdef.0042")
            #expect(identity.email == "standin@privaterelay.appleid.com")
            #expect(identity.emailVerified)
            #expect(identity.rawClaims["real_user_status"] == .int(2))
            #expect(identity.rawClaims["is_private_email"] == .string("true"))
            let unverified = try await provider(standIn, transport).verify(idToken: try standIn.idToken("apple", ["email_verified": false]))
            #expect(unverified.emailVerified == false)
        }
    }

    @Test func nonce() async throws {
        try await withStandIn { standIn, transport in
            let apple = try provider(standIn, transport)
            // The iOS pattern: the app sends SHA-256(raw nonce) as hex, the server knows the raw nonce.
            _ = try await apple.verify(idToken: try standIn.idToken("apple", ["nonce": .string(Self.abcSHA256)]), nonce: "abc")
            // Exact match (Sign in with Apple JS passes the nonce through unchanged).
            _ = try await apple.verify(idToken: try standIn.idToken("apple", ["nonce": "abc"]), nonce: "abc")
            #expect(
                await errorCode { _ = try await apple.verify(idToken: try standIn.idToken("apple", ["nonce": "abd"]), nonce: "abc") }
                    == "invalid_nonce")
            #expect(
                await errorCode {
                    _ = try await apple.verify(idToken: try standIn.idToken("apple", ["nonce": .string(Self.abcSHA256)]), nonce: Self.abcSHA256 + "0")
                }
                    == "invalid_nonce")
            #expect(await errorCode { _ = try await apple.verify(idToken: try standIn.idToken("apple"), nonce: "abc") } == "invalid_nonce")
        }
    }

    @Test func rejections() async throws {
        try await withStandIn { standIn, transport in
            let apple = try provider(standIn, transport)
            let now = Int64(Date().timeIntervalSince1970)
            let cases: [(ClaimSet, String)] = [
                (["aud": "com.example.other"], "invalid_audience"),
                (["iss": "https://accounts.google.com"], "invalid_issuer"),
                (["exp": .int(now - 1)], "expired"),
                (["email_verified": "yes"], "invalid_claim"),
                (["is_private_email": 1], "invalid_claim"),
                (["real_user_status": 7], "invalid_claim"),
            ]
            for (overrides, code) in cases {
                #expect(
                    await errorCode { _ = try await apple.verify(idToken: try standIn.idToken("apple", overrides)) } == code,
                    "\(overrides.jsonString)")
            }
            // A Google token is not an Apple token.
            #expect(await errorCode { _ = try await apple.verify(idToken: try standIn.idToken("google")) } == "invalid_issuer")
        }
    }

    @Test func clientSecretHasApplesShape() async throws {
        try await withStandIn { standIn, transport in
            let secret = try provider(standIn, transport).clientSecret(clientID: standIn.settings.appleClientID)
            var key = standIn.appleClientSecretKey.publicKey
            key.keyID = "STANDINKY1"
            let token = try JWTVerifier(
                key: key,
                options: VerifierOptions(algorithms: [.es256])
            ).verify(secret)
            #expect(token.header.algorithm == .es256)
            #expect(token.header.keyID == "STANDINKY1")
            #expect(token.claims.issuer == "STANDINTM1")
            #expect(token.claims.subject == "com.example.standin")
            #expect(token.claims.audience == ["https://appleid.apple.com"])
            let life = token.claims.expiresAt!.timeIntervalSince(token.claims.issuedAt!)
            #expect(life == 3600)
        }
    }

    @Test func clientSecretLifetimeIsAtMostSixMonths() async throws {
        try await withStandIn { standIn, transport in
            _ = try provider(standIn, transport, lifetime: 15_777_000)
            #expect(throws: TokenError(.invalidConfiguration, "")) { try provider(standIn, transport, lifetime: 15_777_001) }
        }
    }

    @Test func codeExchangeAndRevocation() async throws {
        try await withStandIn { standIn, transport in
            standIn.registerAppleCode("c.apple-1", claims: ["nonce": .string(Self.abcSHA256)])
            let apple = try provider(standIn, transport)
            let result = try await apple.exchange(code: "c.apple-1", nonce: "abc")
            #expect(result.identity.subject == "001234.standin0123456789abcdef.0042")
            #expect(result.refreshToken == "r.standin-apple-refresh")
            let form = standIn.requests.last { $0.path == "/auth/token" }!.form
            #expect(form["grant_type"] == "authorization_code")
            #expect(form["code"] == "c.apple-1")
            #expect(form["client_id"] == "com.example.standin")
            #expect(await errorCode { _ = try await apple.exchange(code: "c.apple-1") } == "invalid_grant")

            try await apple.revoke(token: result.refreshToken!)
            #expect(standIn.revokedTokens == ["r.standin-apple-refresh"])
            let revokeForm = standIn.requests.last { $0.path == "/auth/revoke" }!.form
            #expect(revokeForm["token_type_hint"] == "refresh_token")
        }
    }

    @Test func clientAuthenticationFailures() async throws {
        try await withStandIn { standIn, transport in
            // A client secret signed by a key Apple does not know.
            var config = AppleProvider.Configuration(
                clientIDs: [standIn.settings.appleClientID],
                clientSecretKey: .init(
                    teamID: standIn.settings.appleTeamID, keyID: standIn.settings.appleKeyID,
                    privateKey: try JWK.generate(curve: .p256)))
            config.tokenURL = standIn.appleTokenURL
            config.revokeURL = standIn.appleRevokeURL
            config.jwksURL = standIn.appleJWKSURL
            let wrongKey = try AppleProvider(configuration: config, transport: transport)
            #expect(await errorCode { _ = try await wrongKey.exchange(code: "standin-apple-code") } == "invalid_client")
            #expect(await errorCode { try await wrongKey.revoke(token: "r.x") } == "invalid_client")
            let noKey = try provider(standIn, transport, withKey: false)
            #expect(await errorCode { _ = try await noKey.exchange(code: "standin-apple-code") } == "invalid_configuration")
            standIn.setBehavior(.fail(status: 500), for: "/auth/revoke")
            #expect(await errorCode { try await provider(standIn, transport).revoke(token: "r.x") } == "provider_unavailable")
        }
    }

    @Test func rsaKeyIsNotASignInWithAppleKey() throws {
        var config = AppleProvider.Configuration(
            clientIDs: ["com.example"],
            clientSecretKey: .init(teamID: "T", keyID: "K", privateKey: try JWK.generateRSA(bits: 2048)))
        config.jwksURL = "https://appleid.apple.com/auth/keys"
        #expect(throws: TokenError(.invalidConfiguration, "")) { try AppleProvider(configuration: config, transport: AsyncHTTPClientTransportStub()) }
    }
}
