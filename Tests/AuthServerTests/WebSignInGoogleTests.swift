@testable import AuthServer
import Foundation
import JOSE
import ProviderStandIn
import Testing
import OIDCProvider

/// Web sign-in with Google through the App Services redirect flow, over HTTP on 127.0.0.1 with
/// the stand-in as Google (its authorization page answers at once): realm-web's start URL, the
/// provider's page, the callback, and the fragment realm-web reads; the same user as the native
/// id_token login; every refusal where docs/oidc.md ("Web sign-in") puts it.
@Suite("Web sign-in: Google", .serialized)
struct WebSignInGoogleTests {
    typealias B = WebSignInBrowser
    static let redirect = "http://localhost:3000/oauth-done"

    /// A server whose app `myapp` has Google, Apple (with `web_client_id`) and Facebook, and
    /// `redirect_uris`; app `nosecret` has Google without a client secret. `public_url` is the
    /// listener, so the callback URL the providers get is the server's own. `apps` (given the
    /// stand-in's settings) replaces those apps; `clients` goes before the other config members.
    static func withWeb<T>(
        _ kind: StoreKind, apps custom: ((ProviderStandIn.Settings) -> String)? = nil, clients: String = "",
        files more: [String: String] = [:], _ body: (LiveServer, ProviderStandIn) async throws -> T
    ) async throws -> T {
        let standIn = try await ProviderStandIn.start()
        do {
            let st = standIn.settings
            let apps =
                custom?(st) ?? """
                    { "myapp": { "redirect_uris": ["\(redirect)", "https://app.example.com/cb"], "providers": {
                        "anon-user": {},
                        "oauth2-google": { "client_ids": ["\(st.googleClientID)"], "client_secret_file": "google.secret" },
                        "oauth2-apple": { "client_ids": ["\(st.appleClientID)"], "team_id": "\(st.appleTeamID)", "key_id": "\(st.appleKeyID)",
                                          "private_key_file": "apple.p8", "web_client_id": "\(st.appleWebClientID)" },
                        "oauth2-facebook": { "app_id": "\(st.facebookAppID)", "app_secret_file": "fb.secret" } } },
                      "nosecret": { "redirect_uris": ["\(redirect)"], "providers": {
                        "oauth2-google": { "client_ids": ["\(st.googleClientID)"] } } } }
                    """
            let extra =
                clients + """
                    "provider_timeout": "1s",
                    "provider_urls": { "google": "\(standIn.baseURL)", "google_jwks": "\(standIn.googleJWKSURL)",
                                       "google_authorize": "\(standIn.baseURL)/o/oauth2/v2/auth", "apple": "\(standIn.baseURL)",
                                       "facebook_graph": "\(standIn.baseURL)", "facebook_dialog": "\(standIn.baseURL)" },
                    """
            let files = [
                "google.secret": st.googleClientSecret + "\n", "fb.secret": st.facebookAppSecret, "apple.p8": try standIn.appleClientSecretKey.pem(),
            ].merging(more) { _, new in new }
            let result = try await LiveServer.with(kind, apps: apps, extra: extra, files: files, publicURLIsListener: true) {
                try await body($0, standIn)
            }
            try await standIn.shutdown()
            return result
        } catch {
            try? await standIn.shutdown()
            throw error
        }
    }

    /// realm-web's start, then the provider's page; the callback URL the browser is sent to.
    static func toCallback(_ s: LiveServer, provider: String = "oauth2-google", state: String = "qwertyuiopas", device: String? = nil)
        async throws -> String
    {
        let start = try await B.get(B.start(s, provider: provider, redirect: redirect, state: state, device: device))
        #expect(start.status == 302, "\(start.body.prefix(300))")
        let page = try await B.get(try #require(start.header("Location")))
        #expect(page.status == 302, "\(page.body.prefix(300))")
        return try #require(page.header("Location"))
    }

    @Test(
        "signs in: #_baas_ua carries working tokens of the native login's user, the device id is kept, PKCE S256 and a nonce go upstream",
        arguments: StoreKind.available)
    func signIn(kind: StoreKind) async throws {
        try await Self.withWeb(kind) { s, standIn in
            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login", body: #"{"id_token":"\#(try standIn.idToken("google"))"}"#)
            #expect(native.status == 200)
            let device = B.device(#"{"platform":"chrome","platformVersion":"120.0","sdkVersion":"2.0.1","deviceId":"0123456789abcdef01234567"}"#)
            let callback = try await Self.toCallback(s, device: device)
            #expect(callback.hasPrefix(s.baseURL + "/oauth/callback/google?"))
            let done = try await B.get(callback)
            #expect(done.header("Cache-Control") == "no-store")
            let f = try B.fragment(done, redirect: Self.redirect)
            #expect(f["_baas_client_app_id"] == "myapp" && f["_baas_state"] == "qwertyuiopas" && f["_baas_error"] == nil)
            let ua = try #require(f["_baas_ua"]).split(separator: "$").map(String.init)
            try #require(ua.count == 4)
            #expect(ua[2] == native["user_id"] && ua[3] == "0123456789abcdef01234567")
            let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: ua[0])
            #expect(profile.status == 200 && profile["user_id"] == ua[2])
            #expect(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: ua[1]).status == 201)
            let sessions = try await s.call(.GET, LiveServer.base + "/auth/sessions", bearer: ua[0])
            #expect(sessions.json?.arrayValue?.contains { $0.objectValue?["device_id"]?.stringValue == "0123456789abcdef01234567" } == true)

            // What went upstream: the server's own state (not realm-web's), a nonce, PKCE S256.
            let page = try #require(standIn.web.authorizationRequests.last).query
            #expect(page["client_id"] == standIn.settings.googleClientID && page["response_type"] == "code")
            #expect(page["redirect_uri"] == s.baseURL + "/oauth/callback/google" && page["scope"] == "openid email profile")
            #expect(page["code_challenge_method"] == "S256" && page["code_challenge"]?.utf8.count == 43)
            #expect(page["nonce"]?.utf8.count == 43 && page["state"] != "qwertyuiopas" && page["state"]?.hasSuffix(".myapp") == true)
            let token = try #require(standIn.requests.last { $0.path == "/token" }).form
            #expect(token["code_verifier"]?.utf8.count == 43 && token["redirect_uri"] == s.baseURL + "/oauth/callback/google")
            // Without a device, a new device id.
            let again = try B.fragment(try await B.get(try await Self.toCallback(s)), redirect: Self.redirect)
            let second = try #require(again["_baas_ua"]).split(separator: "$").map(String.init)
            #expect(second.count == 4 && second[2] == ua[2] && second[3] != ua[3] && second[3].utf8.count == 24)
        }
    }

    @Test(
        "the callback: a tampered, unknown, missing or another provider's state is the 400 page and spends nothing; a used one is the 400 page",
        arguments: StoreKind.available)
    func callbackState(kind: StoreKind) async throws {
        try await Self.withWeb(kind) { s, _ in
            let callback = try await Self.toCallback(s)
            let state = try #require(B.query(callback)["state"])
            let code = try #require(B.query(callback)["code"])
            let tampered = String(state.prefix(10)) + (state.dropFirst(10).first == "A" ? "B" : "A") + state.dropFirst(11)
            for url in [
                s.baseURL + "/oauth/callback/google?code=\(code)&state=\(tampered)", s.baseURL + "/oauth/callback/google?code=\(code)&state=garbage",
                s.baseURL + "/oauth/callback/google?code=\(code)", s.baseURL + "/oauth/callback/facebook?code=\(code)&state=\(state)",
                s.baseURL + "/oauth/callback/twitter?code=\(code)&state=\(state)",
            ] {
                let answer = try await B.get(url)
                #expect(answer.status == 400 && answer.header("Location") == nil, "\(url)")
                #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true && answer.body.contains("expired or was already used"))
                #expect(answer.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            }
            let done = try await B.get(callback)
            #expect(try B.fragment(done, redirect: Self.redirect)["_baas_ua"] != nil)
            let reused = try await B.get(callback)
            #expect(reused.status == 400 && reused.header("Location") == nil && reused.body.contains("expired or was already used"))
        }
    }

    @Test(
        "a provider's refusal, a wrong nonce or audience, a failing or stalled token endpoint: #_baas_error with realm-web's state, never a 500",
        arguments: StoreKind.available)
    func upstreamRefusals(kind: StoreKind) async throws {
        try await Self.withWeb(kind) { s, standIn in
            func refusal() async throws -> String {
                try B.refusal(try await B.get(try await Self.toCallback(s)), redirect: Self.redirect, state: "qwertyuiopas")
            }
            standIn.web.setAnswer(.deny)
            do { let said = try await refusal(); #expect(said.contains("access_denied"), "\(said)") }
            standIn.web.setAnswer(.approve)
            standIn.web.overrideClaims(["nonce": "the-nonce-of-another-sign-in"])
            do { let said = try await refusal(); #expect(said.contains("invalid_nonce"), "\(said)") }
            standIn.web.overrideClaims(["nonce": .null])
            do { let said = try await refusal(); #expect(said.contains("invalid_nonce"), "\(said)") }
            standIn.web.overrideClaims(["aud": "another-client.apps.googleusercontent.com"])
            do { let said = try await refusal(); #expect(said.contains("invalid_audience"), "\(said)") }
            standIn.web.overrideClaims([:])
            standIn.setBehavior(.fail(status: 500), for: "/token")
            do { let said = try await refusal(); #expect(said.contains("unavailable"), "\(said)") }
            standIn.setBehavior(.stall, for: "/token")
            let started = Date()
            do { let said = try await refusal(); #expect(said.contains("unavailable"), "\(said)") }
            #expect(Date().timeIntervalSince(started) < 10)
            standIn.setBehavior(.normal, for: "/token")
            #expect(try B.fragment(try await B.get(try await Self.toCallback(s)), redirect: Self.redirect)["_baas_ua"] != nil)
            #expect(!s.logs.all.contains { $0.contains("standin-web-code") })
        }
    }

    @Test(
        "the start: an unregistered or missing redirect, or no state, is the 400 page; what else is wrong goes back as #_baas_error",
        arguments: StoreKind.available)
    func startRefusals(kind: StoreKind) async throws {
        try await Self.withWeb(kind) { s, standIn in
            for url in [
                B.start(s, provider: "oauth2-google", redirect: Self.redirect + "/", state: "s"),
                B.start(s, provider: "oauth2-google", redirect: "https://evil.example/cb", state: "s"),
                s.baseURL + LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login?state=s",
                s.baseURL + LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login?redirect=" + Self.redirect,
                B.start(s, provider: "oauth2-google", redirect: Self.redirect, state: ""),
            ] {
                let answer = try await B.get(url)
                #expect(answer.status == 400 && answer.header("Location") == nil, "\(url)")
                #expect(answer.header("Content-Type")?.hasPrefix("text/html") == true)
            }
            let unknownApp = try await B.get(B.start(s, app: "nope", provider: "oauth2-google", redirect: Self.redirect, state: "s"))
            #expect(unknownApp.status == 404 && unknownApp.errorCode == "AppNotFound")
            for (app, provider, device) in [
                ("myapp", "oauth2-twitter", nil), ("myapp", "anon-user", nil), ("nosecret", "oauth2-google", nil),
                ("myapp", "oauth2-google", "!!not base64!!"), ("myapp", "oauth2-google", B.device(#"{"deviceId":"nothex"}"#)),
                ("myapp", "oauth2-google", B.device("[1]")),
            ] {
                let answer = try await B.get(B.start(s, app: app, provider: provider, redirect: Self.redirect, state: "st8", device: device))
                let f = try B.fragment(answer, redirect: Self.redirect)
                #expect(f["_baas_state"] == "st8" && f["_baas_error"]?.isEmpty == false && f["_baas_ua"] == nil, "\(provider) \(f)")
            }
            #expect(standIn.web.authorizationRequests.isEmpty)
            // The native login at the same path is untouched.
            #expect(try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/anon-user/login", body: "{}").status == 200)
        }
    }
}
