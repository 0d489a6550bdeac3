import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

@Suite struct FacebookProviderTests {
    func provider(
        _ standIn: ProviderStandIn, _ transport: any HTTPTransport, secret: String? = nil,
        clock: TokenClock = .system, timeout: TimeInterval = 30
    ) throws -> FacebookProvider {
        var config = FacebookProvider.Configuration(appID: standIn.settings.facebookAppID, appSecret: secret ?? standIn.settings.facebookAppSecret)
        config.graphURL = standIn.graphURL
        config.limitedLoginJWKSURL = standIn.facebookJWKSURL
        config.clock = clock
        config.timeout = timeout
        return try FacebookProvider(configuration: config, transport: transport)
    }

    @Test func validAccessToken() async throws {
        try await withStandIn { standIn, transport in
            let identity = try await provider(standIn, transport).verify(accessToken: "standin-facebook-user-token")
            #expect(identity.provider == "facebook")
            #expect(identity.subject == "10000000000000042")
            #expect(identity.name == "Stand In")
            #expect(identity.email == "standin@example.com")
            #expect(identity.emailVerified == false)
            #expect(identity.picture == "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10000000000000042")
            let debug = standIn.requests.first { $0.path.hasSuffix("/debug_token") }!
            #expect(debug.query["access_token"] == "\(standIn.settings.facebookAppID)|\(standIn.settings.facebookAppSecret)")
            #expect(debug.query["input_token"] == "standin-facebook-user-token")
            let me = standIn.requests.first { $0.path.hasSuffix("/me") }!
            #expect(me.query["fields"] == "id,name,email,picture")
            // openssl dgst -sha256 -hmac standin-facebook-app-secret <<< standin-facebook-user-token (no newline)
            #expect(me.query["appsecret_proof"] == "5a90206f330f7d9a83bd15d8f1c415ac8c0079e4a4b9ff37a3464992261777a0")
        }
    }

    @Test func rejections() async throws {
        try await withStandIn { standIn, transport in
            let now = Int64(Date().timeIntervalSince1970)
            standIn.registerFacebookUser(.init(accessToken: "expired-token", userID: "7", appID: standIn.settings.facebookAppID, expiresAt: now - 5))
            standIn.registerFacebookUser(.init(accessToken: "revoked-token", userID: "8", appID: standIn.settings.facebookAppID, isValid: false))
            standIn.registerFacebookUser(
                .init(
                    accessToken: "http-picture", userID: "9", appID: standIn.settings.facebookAppID,
                    pictureURL: "http://insecure.example.com/p.png"))
            let facebook = try provider(standIn, transport)
            #expect(await errorCode { _ = try await facebook.verify(accessToken: "standin-foreign-app-token") } == "foreign_app")
            #expect(await errorCode { _ = try await facebook.verify(accessToken: "garbage-token") } == "invalid_token")
            #expect(await errorCode { _ = try await facebook.verify(accessToken: "revoked-token") } == "invalid_token")
            #expect(await errorCode { _ = try await facebook.verify(accessToken: "expired-token") } == "expired")
            #expect(await errorCode { _ = try await facebook.verify(accessToken: "") } == "invalid_token")
            #expect(await errorCode { _ = try await facebook.verify(accessToken: "http-picture") } == "invalid_claim")
            // A foreign token never reaches /me.
            #expect(standIn.requests.filter { $0.path.hasSuffix("/me") && $0.query["access_token"] == "standin-foreign-app-token" }.isEmpty)
        }
    }

    @Test func wrongAppSecretIsInvalidClient() async throws {
        try await withStandIn { standIn, transport in
            #expect(
                await errorCode { _ = try await provider(standIn, transport, secret: "wrong").verify(accessToken: "standin-facebook-user-token") }
                    == "invalid_client")
        }
    }

    @Test func graphFailures() async throws {
        try await withStandIn { standIn, transport in
            let facebook = try provider(standIn, transport, timeout: 0.5)
            for behavior in [ProviderStandIn.Behavior.fail(status: 500), .garbage, .stall, .oversized(bytes: 300 * 1024)] {
                standIn.setBehavior(behavior)
                #expect(
                    await errorCode { _ = try await facebook.verify(accessToken: "standin-facebook-user-token") } == "provider_unavailable",
                    "\(behavior)")
            }
            standIn.setBehavior(.normal)
            standIn.setBehavior(.fail(status: 500), for: "/v21.0/me")
            #expect(await errorCode { _ = try await facebook.verify(accessToken: "standin-facebook-user-token") } == "provider_unavailable")
        }
    }

    @Test func limitedLogin() async throws {
        try await withStandIn { standIn, transport in
            let facebook = try provider(standIn, transport)
            let identity = try await facebook.verify(limitedLoginToken: try standIn.idToken("facebook", ["nonce": "n-1"]), nonce: "n-1")
            #expect(identity.subject == "10000000000000042")
            #expect(identity.email == "standin@example.com")
            #expect(identity.givenName == "Stand")
            #expect(
                await errorCode { _ = try await facebook.verify(limitedLoginToken: try standIn.idToken("facebook", ["nonce": "n-1"]), nonce: "n-2") }
                    == "invalid_nonce")
            #expect(
                await errorCode { _ = try await facebook.verify(limitedLoginToken: try standIn.idToken("facebook", ["aud": "2000000000000002"])) }
                    == "invalid_audience")
            #expect(await errorCode { _ = try await facebook.verify(limitedLoginToken: try standIn.idToken("google")) } == "invalid_issuer")
        }
    }
}
