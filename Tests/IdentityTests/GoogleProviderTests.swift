import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

@Suite struct GoogleProviderTests {
    func provider(
        _ standIn: ProviderStandIn, _ transport: any HTTPTransport, hostedDomain: String? = nil,
        secret: String? = nil, timeout: TimeInterval = 30
    ) throws -> GoogleProvider {
        var config = GoogleProvider.Configuration(
            clientIDs: [standIn.settings.googleClientID, "other-client.apps.googleusercontent.com"],
            hostedDomain: hostedDomain, clientSecret: secret)
        config.jwksURL = standIn.googleJWKSURL
        config.tokenURL = standIn.googleTokenURL
        config.timeout = timeout
        return try GoogleProvider(configuration: config, transport: transport)
    }

    @Test func validIDToken() async throws {
        try await withStandIn { standIn, transport in
            let identity = try await provider(standIn, transport).verify(idToken: try standIn.idToken("google"))
            #expect(identity.provider == "google")
            #expect(identity.subject == "110000000000000000001")
            #expect(identity.email == "standin.user@gmail.com")
            #expect(identity.emailVerified)
            #expect(identity.name == "Stand In")
            #expect(identity.givenName == "Stand")
            #expect(identity.familyName == "In")
            #expect(identity.picture == "https://lh3.googleusercontent.com/a/standin")
            #expect(identity.locale == "en")
            #expect(identity.rawClaims["azp"] == .string(standIn.settings.googleClientID))
        }
    }

    @Test(arguments: ["accounts.google.com", "https://accounts.google.com"])
    func bothIssuerForms(iss: String) async throws {
        try await withStandIn { standIn, transport in
            _ = try await provider(standIn, transport).verify(idToken: try standIn.idToken("google", ["iss": .string(iss)]))
        }
    }

    @Test func rejections() async throws {
        try await withStandIn { standIn, transport in
            let google = try provider(standIn, transport)
            let now = Int64(Date().timeIntervalSince1970)
            let cases: [(ClaimSet, String)] = [
                (["aud": "someone-else.apps.googleusercontent.com"], "invalid_audience"),
                (["iss": "https://evil.example.com"], "invalid_issuer"),
                (["iss": "http://accounts.google.com"], "invalid_issuer"),
                (["exp": .int(now - 10), "iat": .int(now - 3610)], "expired"),
                (["iat": .int(now + 600)], "invalid_claim"),
                (["exp": .null], "missing_claim"),
                (["sub": .null], "missing_claim"),
                (["picture": "http://insecure.example.com/p.png"], "invalid_claim"),
                (["email": "not-an-email"], "invalid_claim"),
            ]
            for (overrides, code) in cases {
                let token = try standIn.idToken("google", overrides)
                let got = await errorCode { _ = try await google.verify(idToken: token) }
                #expect(got == code, "\(overrides.jsonString) → \(got ?? "accepted")")
            }
            // A token whose signature was made by another key under a published kid.
            let parts = try standIn.idToken("google").split(separator: ".")
            let other = try standIn.idToken("google", ["sub": "someone-else"]).split(separator: ".")
            #expect(await errorCode { _ = try await google.verify(idToken: "\(parts[0]).\(other[1]).\(parts[2])") } == "invalid_signature")
            #expect(await errorCode { _ = try await google.verify(idToken: "not.a-token") } == "malformed")
        }
    }

    /// An expected nonce, as Apple has: the raw nonce or its SHA-256 hex.
    @Test func expectedNonce() async throws {
        try await withStandIn { standIn, transport in
            let google = try provider(standIn, transport)
            #expect(
                try await google.verify(idToken: try standIn.idToken("google", ["nonce": "n-0S6_WzA2Mj"]), nonce: "n-0S6_WzA2Mj").subject
                    == "110000000000000000001")
            #expect(
                await errorCode {
                    _ = try await google.verify(idToken: try standIn.idToken("google", ["nonce": "another-nonce"]), nonce: "n-0S6_WzA2Mj")
                } == "invalid_nonce")
            #expect(await errorCode { _ = try await google.verify(idToken: try standIn.idToken("google"), nonce: "n-0S6_WzA2Mj") } == "invalid_nonce")
            // Without an expected nonce, a token's nonce is not checked.
            _ = try await google.verify(idToken: try standIn.idToken("google", ["nonce": "anything"]))
        }
    }

    /// With several audiences, `azp` must be one of our client ids.
    @Test func azpWithSeveralAudiences() async throws {
        try await withStandIn { standIn, transport in
            let google = try provider(standIn, transport)
            let ours = standIn.settings.googleClientID
            let both: JSONValue = [.string(ours), "someone-else.apps.googleusercontent.com"]
            #expect(try await google.verify(idToken: try standIn.idToken("google", ["aud": both])).subject == "110000000000000000001")
            #expect(
                await errorCode {
                    _ = try await google.verify(
                        idToken: try standIn.idToken("google", ["aud": both, "azp": "someone-else.apps.googleusercontent.com"]))
                }
                    == "invalid_audience")
            #expect(
                await errorCode { _ = try await google.verify(idToken: try standIn.idToken("google", ["aud": both, "azp": .null])) }
                    == "invalid_audience")
            // One audience: azp is the authorized party (an Android client, say) and is not checked.
            _ = try await google.verify(idToken: try standIn.idToken("google", ["azp": "android-client.apps.googleusercontent.com"]))
        }
    }

    @Test func hostedDomain() async throws {
        try await withStandIn { standIn, transport in
            let google = try provider(standIn, transport, hostedDomain: "example.com")
            #expect(try await google.verify(idToken: try standIn.idToken("google", ["hd": "example.com"])).subject == "110000000000000000001")
            #expect(
                await errorCode { _ = try await google.verify(idToken: try standIn.idToken("google", ["hd": "evil.com"])) } == "invalid_hosted_domain"
            )
            #expect(await errorCode { _ = try await google.verify(idToken: try standIn.idToken("google")) } == "invalid_hosted_domain")
        }
    }

    @Test func serverAuthCode() async throws {
        try await withStandIn { standIn, transport in
            standIn.registerGoogleCode("4/code-1", claims: ["sub": "1234567890"], redirectURI: "https://app.example/cb")
            let google = try provider(standIn, transport, secret: standIn.settings.googleClientSecret)
            let result = try await google.exchange(code: "4/code-1", clientID: standIn.settings.googleClientID, redirectURI: "https://app.example/cb")
            #expect(result.identity.subject == "1234567890")
            #expect(result.accessToken == "ya29.standin-access")
            let form = standIn.requests.last { $0.path == "/token" }!.form
            #expect(
                form == [
                    "code": "4/code-1", "client_id": standIn.settings.googleClientID, "client_secret": standIn.settings.googleClientSecret,
                    "grant_type": "authorization_code", "redirect_uri": "https://app.example/cb",
                ])
            // Codes are single use.
            #expect(
                await errorCode {
                    _ = try await google.exchange(code: "4/code-1", clientID: standIn.settings.googleClientID, redirectURI: "https://app.example/cb")
                }
                    == "invalid_grant")
        }
    }

    @Test func serverAuthCodeErrors() async throws {
        try await withStandIn { standIn, transport in
            let client = standIn.settings.googleClientID
            standIn.registerGoogleCode("4/code-2", redirectURI: "https://app.example/cb")
            let google = try provider(standIn, transport, secret: standIn.settings.googleClientSecret)
            #expect(
                await errorCode { _ = try await google.exchange(code: "4/code-2", clientID: client, redirectURI: "https://evil.example/cb") }
                    == "redirect_uri_mismatch")
            #expect(await errorCode { _ = try await google.exchange(code: "4/unknown", clientID: client) } == "invalid_grant")
            let wrongSecret = try provider(standIn, transport, secret: "wrong")
            #expect(await errorCode { _ = try await wrongSecret.exchange(code: "standin-google-code", clientID: client) } == "invalid_client")
            let noSecret = try provider(standIn, transport)
            #expect(await errorCode { _ = try await noSecret.exchange(code: "standin-google-code", clientID: client) } == "invalid_configuration")
            standIn.setBehavior(.fail(status: 500), for: "/token")
            #expect(await errorCode { _ = try await google.exchange(code: "standin-google-code", clientID: client) } == "provider_unavailable")
            standIn.setBehavior(.garbage, for: "/token")
            #expect(await errorCode { _ = try await google.exchange(code: "standin-google-code", clientID: client) } == "provider_unavailable")
            standIn.setBehavior(.stall, for: "/token")
            // Only the stall runs under a short timeout: a busy machine must not turn the answers above into timeouts.
            let impatient = try provider(standIn, transport, secret: standIn.settings.googleClientSecret, timeout: 0.5)
            #expect(await errorCode { _ = try await impatient.exchange(code: "standin-google-code", clientID: client) } == "provider_unavailable")
        }
    }

    @Test func jwksOutageIsProviderUnavailable() async throws {
        try await withStandIn { standIn, transport in
            standIn.setBehavior(.fail(status: 503), for: "/oauth2/v3/certs")
            let google = try provider(standIn, transport)
            #expect(await errorCode { _ = try await google.verify(idToken: try standIn.idToken("google")) } == "provider_unavailable")
        }
    }

    @Test func oauthErrorBodiesMapToCodes() async throws {
        struct Fixed: HTTPTransport {
            let status: Int, body: String
            func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: status, body: Array(body.utf8)) }
        }
        let cases: [(Int, String, String)] = [
            (400, #"{"error":"invalid_grant","error_description":"Bad Request"}"#, "invalid_grant"),
            (400, #"{"error":"redirect_uri_mismatch"}"#, "redirect_uri_mismatch"),
            (401, #"{"error":"invalid_client"}"#, "invalid_client"),
            (400, #"{"error":"unauthorized_client"}"#, "invalid_client"),
            (400, #"{"error":"unsupported_grant_type"}"#, "provider_error"),
            (400, #"not json"#, "provider_unavailable"),
            (429, #"{"error":"rate_limit"}"#, "provider_unavailable"),
            (200, #"{"access_token":"x"}"#, "provider_unavailable"),
        ]
        for (status, body, code) in cases {
            var config = GoogleProvider.Configuration(clientIDs: ["c"], clientSecret: "s")
            config.tokenURL = "https://oauth2.example/token"
            let google = try GoogleProvider(configuration: config, keys: .keys(try JWKSet(keys: [])), transport: Fixed(status: status, body: body))
            #expect(await errorCode { _ = try await google.exchange(code: "x") } == code, "\(body)")
        }
    }
}
