@testable import AuthServer
import Foundation
import JOSE
import ProviderStandIn
import Testing

/// Logins with the stand-in providers on 127.0.0.1: custom-token (with claim mapping), Google,
/// Apple (authCode: the refresh token kept and revoked at delete), Facebook; linking.
@Suite("Provider logins", .serialized)
struct ProviderLoginTests {
    static let base = LiveServer.base
    static func login(_ provider: String, link: Bool = false) -> String {
        base + "/app/myapp/auth/providers/\(provider)/login" + (link ? "?link=true" : "")
    }

    /// With `otherAppleClientIDs`, the app's Apple `client_ids` list them after the stand-in's own
    /// (a bundle id and a web Services ID: the usual set-up).
    static func withProviders<T>(
        _ kind: StoreKind, otherAppleClientIDs: [String] = [], _ body: (LiveServer, ProviderStandIn) async throws -> T
    ) async throws -> T {
        let standIn = try await ProviderStandIn.start()
        do {
            let st = standIn.settings
            let appleIDs = ([st.appleClientID] + otherAppleClientIDs).map { "\"\($0)\"" }.joined(separator: ", ")
            let apps = """
                { "myapp": { "providers": {
                    "anon-user": {},
                    "custom-token": { "jwks": "\(standIn.customJWKSURL)", "issuer": "\(st.customIssuer)", "audience": ["\(st.customAudience)"],
                                      "metadata": { "name": "user_data.name", "email": "user_data.email" } },
                    "oauth2-google": { "client_ids": ["\(st.googleClientID)"], "client_secret_file": "google.secret" },
                    "oauth2-apple": { "client_ids": [\(appleIDs)], "team_id": "\(st.appleTeamID)", "key_id": "\(st.appleKeyID)",
                                      "private_key_file": "apple.p8" },
                    "oauth2-facebook": { "app_id": "\(st.facebookAppID)", "app_secret_file": "fb.secret" } },
                  "webhooks": { "user_deleted": "\(standIn.baseURL)/deleted" } } }
                """
            let extra = """
                "provider_urls": { "google": "\(standIn.baseURL)", "google_jwks": "\(standIn.googleJWKSURL)", "apple": "\(standIn.baseURL)",
                                   "facebook_graph": "\(standIn.baseURL)" },
                """
            let files = [
                "google.secret": st.googleClientSecret + "\n", "fb.secret": st.facebookAppSecret, "apple.p8": try standIn.appleClientSecretKey.pem(),
            ]
            let result = try await LiveServer.with(kind, apps: apps, extra: extra, files: files) { try await body($0, standIn) }
            try await standIn.shutdown()
            return result
        } catch {
            try? await standIn.shutdown()
            throw error
        }
    }

    @Test("custom-token: the identity is (provider, sub); metadata fills the profile; a bad token is 401 AuthError", arguments: StoreKind.available)
    func customToken(kind: StoreKind) async throws {
        try await Self.withProviders(kind) { s, standIn in
            let token = try standIn.idToken("custom")
            let first = try await s.call(.POST, Self.login("custom-token"), body: #"{"token":"\#(token)"}"#)
            #expect(first.status == 200)
            let again = try await s.call(.POST, Self.login("custom-token"), body: #"{"token":"\#(try standIn.idToken("custom"))"}"#)
            #expect(again["user_id"] == first["user_id"])
            let profile = try await s.call(.GET, Self.base + "/auth/profile", bearer: first["access_token"])
            #expect(profile.object["data"] == .object(["name": "Stand In", "email": "standin@example.com"]))
            let identity = try #require(profile.object["identities"]?.arrayValue?.first?.objectValue)
            #expect(identity == ["id": "user-42", "provider_type": "custom-token", "provider_id": "custom-token"])

            let wrongAudience = try standIn.idToken("custom", ["aud": "someone-else"])
            let refused = try await s.call(.POST, Self.login("custom-token"), body: #"{"token":"\#(wrongAudience)"}"#)
            #expect(refused.status == 401 && refused.errorCode == "AuthError")
            let expired = try standIn.idToken("custom", ["exp": 1_000_000_000, "iat": 999_999_000])
            #expect(try await s.call(.POST, Self.login("custom-token"), body: #"{"token":"\#(expired)"}"#).errorCode == "AuthError")
            let garbage = try await s.call(.POST, Self.login("custom-token"), body: #"{"token":"not.a.jwt"}"#)
            #expect(garbage.status == 401 && garbage.errorCode == "AuthError")
        }
    }

    @Test(
        "link: an identity joins the bearer's user (session goes on); linking it again is 200; another user's is 409", arguments: StoreKind.available)
    func link(kind: StoreKind) async throws {
        try await Self.withProviders(kind) { s, standIn in
            let anon = try await s.call(.POST, Self.login("anon-user"), body: "{}")
            let access = try #require(anon["access_token"]), refresh = try #require(anon["refresh_token"]), user = try #require(anon["user_id"])
            let body = #"{"token":"\#(try standIn.idToken("custom"))"}"#
            let linked = try await s.call(.POST, Self.login("custom-token", link: true), body: body, bearer: access)
            #expect(linked.status == 200 && linked["user_id"] == user)
            #expect(Set(linked.object.keys) == ["access_token", "user_id", "device_id"])
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: refresh).status == 201)  // the session goes on
            let relink = try await s.call(.POST, Self.login("custom-token", link: true), body: body, bearer: linked["access_token"])
            #expect(relink.status == 200)
            // Logging in with the linked identity now signs in as that user.
            #expect(try await s.call(.POST, Self.login("custom-token"), body: body)["user_id"] == user)

            let other = try #require(try await s.call(.POST, Self.login("anon-user"), body: "{}")["access_token"])
            let conflict = try await s.call(.POST, Self.login("custom-token", link: true), body: body, bearer: other)
            #expect(conflict.status == 409 && conflict.errorCode == "AccountNameInUse")
            let noBearer = try await s.call(.POST, Self.login("custom-token", link: true), body: body)
            #expect(noBearer.status == 401 && noBearer.errorCode == "InvalidSession")
        }
    }

    @Test("Google id_token and authCode; Facebook accessToken; profile data from the provider", arguments: StoreKind.available)
    func googleAndFacebook(kind: StoreKind) async throws {
        try await Self.withProviders(kind) { s, standIn in
            let byToken = try await s.call(.POST, Self.login("oauth2-google"), body: #"{"id_token":"\#(try standIn.idToken("google"))"}"#)
            #expect(byToken.status == 200)
            let byCode = try await s.call(.POST, Self.login("oauth2-google"), body: #"{"authCode":"standin-google-code"}"#)
            #expect(byCode.status == 200 && byCode["user_id"] == byToken["user_id"])
            let profile = try await s.call(.GET, Self.base + "/auth/profile", bearer: byCode["access_token"])
            #expect(profile.object["data"]?.objectValue?["first_name"] == "Stand")
            #expect(profile.object["data"]?.objectValue?["picture_url"] == "https://lh3.googleusercontent.com/a/standin")
            // realm-web reads `picture`.
            #expect(profile.object["data"]?.objectValue?["picture"] == "https://lh3.googleusercontent.com/a/standin")
            let badCode = try await s.call(.POST, Self.login("oauth2-google"), body: #"{"authCode":"no-such-code"}"#)
            #expect(badCode.status == 401 && badCode.errorCode == "AuthError")

            let fb = try await s.call(.POST, Self.login("oauth2-facebook"), body: #"{"accessToken":"standin-facebook-user-token"}"#)
            #expect(fb.status == 200)
            let foreign = try await s.call(.POST, Self.login("oauth2-facebook"), body: #"{"accessToken":"standin-foreign-app-token"}"#)
            #expect(foreign.status == 401 && foreign.errorCode == "AuthError")
        }
    }

    @Test(
        "Apple: id_token; authCode keeps the refresh token sealed and deleting the user revokes it at Apple; the user_deleted webhook",
        arguments: StoreKind.available)
    func apple(kind: StoreKind) async throws {
        try await Self.withProviders(kind) { s, standIn in
            standIn.setBehavior(.fail(status: 200), for: "/deleted")
            let byToken = try await s.call(.POST, Self.login("oauth2-apple"), body: #"{"id_token":"\#(try standIn.idToken("apple"))"}"#)
            #expect(byToken.status == 200)
            let byCode = try await s.call(.POST, Self.login("oauth2-apple"), body: #"{"authCode":"standin-apple-code"}"#)
            #expect(byCode.status == 200 && byCode["user_id"] == byToken["user_id"])
            #expect(standIn.revokedTokens.isEmpty)
            #expect(try await s.call(.DELETE, Self.base + "/auth/delete", bearer: byCode["access_token"]).status == 204)
            for _ in 0..<100 where standIn.revokedTokens.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            #expect(standIn.revokedTokens.count == 1)
            // The user_deleted webhook was told, with the user's id.
            for _ in 0..<100 where standIn.requestCount(path: "/deleted") == 0 { try await Task.sleep(for: .milliseconds(50)) }
            let hook = try #require(standIn.requests.first { $0.path == "/deleted" })
            #expect(hook.method == "POST")
            #expect(
                try JSONValue(parsing: String(decoding: hook.body, as: UTF8.self))
                    == .object(["type": "user_deleted", "app": "myapp", "user_id": .string(try #require(byCode["user_id"]))]))
        }
    }

    @Test(
        "Apple with two client_ids: the code's refresh token is revoked with the client id it was issued to; failures log their code",
        arguments: StoreKind.available)
    func appleTwoClientIDs(kind: StoreKind) async throws {
        try await Self.withProviders(kind, otherAppleClientIDs: ["com.example.standin.web"]) { s, standIn in
            let byCode = try await s.call(.POST, Self.login("oauth2-apple"), body: #"{"authCode":"standin-apple-code"}"#)
            #expect(byCode.status == 200, "\(byCode.body)")
            #expect(try await s.call(.DELETE, Self.base + "/auth/delete", bearer: byCode["access_token"]).status == 204)
            for _ in 0..<100 where standIn.revokedTokens.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            #expect(standIn.revokedTokens == ["r.standin-apple-refresh"])
            let revoke = try #require(standIn.requests.last { $0.path == "/auth/revoke" })
            #expect(revoke.form["client_id"] == standIn.settings.appleClientID)
            let revocationFailed = { (line: String) in line.contains("background job failed") && line.contains("apple token revocation") }
            #expect(!s.logs.all.contains(where: revocationFailed), "\(s.logs.all)")

            // Apple down: each failed attempt is logged with the error's code, never a bare type name.
            standIn.setBehavior(.fail(status: 503), for: "/auth/revoke")
            let again = try await s.call(.POST, Self.login("oauth2-apple"), body: #"{"authCode":"standin-apple-code"}"#)
            #expect(try await s.call(.DELETE, Self.base + "/auth/delete", bearer: again["access_token"]).status == 204)
            for _ in 0..<100 where !s.logs.all.contains(where: revocationFailed) { try await Task.sleep(for: .milliseconds(50)) }
            let failed = try #require(s.logs.all.first(where: revocationFailed))
            #expect(failed.contains("error=provider_unavailable") || failed.contains("error=provider_error"), "\(failed)")
            #expect(!failed.contains("TokenError"))
        }
    }

    @Test("a kept Apple token names its client id; one kept bare (before client ids were kept) was issued to client_ids[0]")
    func keptProviderTokens() {
        let kept = KeptProviderToken(clientID: "com.example.web", token: "r.abc")
        let read = KeptProviderToken(stored: kept.stored, orIssuedTo: "com.example.app")
        #expect(read.clientID == "com.example.web" && read.token == "r.abc")
        let bare = KeptProviderToken(stored: "r.0123.abc", orIssuedTo: "com.example.app")
        #expect(bare.clientID == "com.example.app" && bare.token == "r.0123.abc")
    }
}
