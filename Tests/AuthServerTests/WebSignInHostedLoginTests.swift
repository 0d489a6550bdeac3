@testable import AuthServer
import CLIHarness
import Foundation
import JOSE
import ProviderStandIn
import Testing

/// The hosted login page's "Continue with …" buttons over HTTP on 127.0.0.1, with the stand-in as
/// Google: the buttons of the providers an app sets up for the web, Google through the page to a
/// code whose user is the native Google login's (`amr` `["fed"]`), and a provider's refusal or a
/// refused token shown on the login page.
@Suite("Web sign-in: the hosted login page", .serialized)
struct WebSignInHostedLoginTests {
    typealias B = WebSignInBrowser

    /// `myapp`: email/password, Google and Facebook for the web, Apple for native logins only;
    /// `nosecret`: Google without a client secret (no web sign-in).
    static func apps(_ st: ProviderStandIn.Settings) -> String {
        """
        { "myapp": { "providers": {
            "local-userpass": { "auto_confirm": true },
            "oauth2-google": { "client_ids": ["\(st.googleClientID)"], "client_secret_file": "google.secret" },
            "oauth2-apple": { "client_ids": ["\(st.appleClientID)"] },
            "oauth2-facebook": { "app_id": "\(st.facebookAppID)", "app_secret_file": "fb.secret" } } },
          "nosecret": { "providers": { "local-userpass": {}, "oauth2-google": { "client_ids": ["\(st.googleClientID)"] } } } }
        """
    }

    static let clients = #"""
        "clients": {
          "portal": { "app": "myapp", "name": "Portal", "secret_file": "portal.secret", "first_party": true,
                      "redirect_uris": ["https://portal.example.com/cb"] },
          "third": { "app": "myapp", "name": "Third", "secret_file": "portal.secret", "redirect_uris": ["https://third.example/cb"] },
          "other": { "app": "nosecret", "secret_file": "portal.secret", "first_party": true, "redirect_uris": ["https://other.example/cb"] } },
        """#

    static func with<T>(_ kind: StoreKind, _ body: (LiveServer, ProviderStandIn, OIDCBrowser) async throws -> T) async throws -> T {
        try await WebSignInGoogleTests.withWeb(kind, apps: apps, clients: clients, files: OIDCFixture.files) { s, standIn in
            try await OIDCBrowser.with(s) { try await body(s, standIn, $0) }
        }
    }

    /// The login page of a new flow of `client`.
    static func loginPage(_ b: OIDCBrowser, client: String = "portal", redirect: String = "https://portal.example.com/cb") async throws
        -> (url: String, body: String)
    {
        let start = try await b.get(
            "/oauth/authorize"
                + OIDCFixture.query([
                    ("response_type", "code"), ("client_id", client), ("redirect_uri", redirect), ("scope", "openid email"), ("state", "rp-state"),
                    ("nonce", "rp-nonce"),
                ]))
        #expect(start.status == 302, "\(start.body.prefix(300))")
        let url = try #require(start.header("Location"))
        let page = try await b.get(url)
        #expect(page.status == 200)
        return (url, page.body)
    }

    /// The relying party's side of a hosted sign-in's last answer: a `303` to its redirect URI with
    /// `state`, `iss` and a code, the OP session cookie set; the code exchanged; the ID token's claims.
    static func relyingParty(_ s: LiveServer, _ done: LiveServer.Answer) async throws -> ClaimSet {
        #expect(done.status == 303 && done.header("Cache-Control") == "no-store", "\(done.status) \(done.body.prefix(300))")
        let location = try #require(done.header("Location"))
        #expect(location.hasPrefix("https://portal.example.com/cb?"), "\(location)")
        let answer = OIDCFixture.parameters(location)
        #expect(answer["state"] == "rp-state" && answer["iss"] == s.baseURL && answer["error"] == nil)
        #expect(done.headers.contains { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("tokentool-op-myapp=") && $0.1.contains("HttpOnly") })
        let token = try await s.form(
            "/oauth/token",
            [("grant_type", "authorization_code"), ("code", try #require(answer["code"])), ("redirect_uri", "https://portal.example.com/cb")],
            headers: [OIDCTokenFixture.basic()])
        #expect(token.status == 200, "\(token.body)")
        let jwks = try await s.call(.GET, "/.well-known/jwks.json")
        let options = VerifierOptions(issuers: [s.baseURL], audiences: ["portal"], requiredClaims: ["sub", "auth_time", "sid"], type: "JWT")
        return try JWTVerifier(keys: try JWKSet(json: jwks.body), options: options).verify(try #require(token["id_token"])).claims
    }

    /// The `href` of the page's button with `label`.
    static func button(_ html: String, _ label: String) -> String? {
        html.matches(of: /<a class="alt" href="([^"]*)">([^<]*)<\/a>/).first { $0.output.2 == label }.map {
            String($0.output.1).replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// From the page's Google button to the server's callback (the stand-in's page answering at once).
    static func throughGoogle(_ b: OIDCBrowser, _ html: String) async throws -> String {
        let href = try #require(button(html, "Continue with Google"))
        let start = try await b.get(href)
        #expect(start.status == 302 && start.header("Cache-Control") == "no-store", "\(start.body.prefix(300))")
        let page = try await B.get(try #require(start.header("Location")))
        #expect(page.status == 302, "\(page.body.prefix(300))")
        return try #require(page.header("Location"))
    }

    @Test("one button per provider the app sets up for the web, each a link to the server; none for an app without", arguments: StoreKind.available)
    func buttons(kind: StoreKind) async throws {
        try await Self.with(kind) { s, standIn, b in
            let (url, html) = try await Self.loginPage(b)
            let handle = try #require(OIDCFixture.parameters(url)["flow"])
            #expect(Self.button(html, "Continue with Google") == s.baseURL + "/oauth/login/google?flow=" + handle)
            #expect(Self.button(html, "Continue with Facebook") == s.baseURL + "/oauth/login/facebook?flow=" + handle)
            #expect(!html.contains("Continue with Apple") && !html.contains("<script"))
            let other = try await Self.loginPage(b, client: "other", redirect: "https://other.example/cb")
            #expect(!other.body.contains("Continue with") && other.body.contains(#"name="password""#))

            // A provider not set up for the web, by hand: the login page says so; a dead flow is the 400 page.
            let apple = try await b.get(s.baseURL + "/oauth/login/apple?flow=" + handle)
            #expect(apple.status == 404 && apple.body.contains("does not sign in with apple") && apple.body.contains("Continue with Google"))
            let otherHandle = try #require(OIDCFixture.parameters(other.url)["flow"])
            let noWeb = try await b.get(s.baseURL + "/oauth/login/google?flow=" + otherHandle)
            #expect(noWeb.status == 404 && noWeb.header("Location") == nil)
            for path in ["/oauth/login/google?flow=nope.portal", "/oauth/login/google"] {
                let dead = try await b.get(s.baseURL + path)
                #expect(dead.status == 400 && dead.body.contains("expired or was already used"), "\(path)")
            }
            #expect(standIn.web.authorizationRequests.isEmpty)

            // The Facebook button goes to Facebook's dialog, the callback being the server's.
            let facebook = try await b.get(try #require(Self.button(html, "Continue with Facebook")))
            #expect(facebook.status == 302 && facebook.header("Location")?.hasPrefix(standIn.baseURL + "/v19.0/dialog/oauth?") == true)
            #expect(B.query(facebook.header("Location") ?? "")["redirect_uri"] == s.baseURL + "/oauth/callback/facebook")
        }
    }

    @Test(
        "Google through the hosted page: a code for the client whose user is the native Google login's, amr fed; the OP session then answers at once",
        arguments: StoreKind.available)
    func googleSignIn(kind: StoreKind) async throws {
        try await Self.with(kind) { s, standIn, b in
            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login", body: #"{"id_token":"\#(try standIn.idToken("google"))"}"#)
            let user = try #require(native["user_id"])
            let (_, html) = try await Self.loginPage(b)
            let callback = try await Self.throughGoogle(b, html)
            #expect(callback.hasPrefix(s.baseURL + "/oauth/callback/google?"))
            let claims = try await Self.relyingParty(s, try await b.get(callback))
            #expect(claims.subject == user && claims["amr"] == ["fed"] && claims["acr"] == "urn:tokentool:acr:pwd" && claims["nonce"] == "rp-nonce")
            #expect(claims["email"] != nil)

            // Signed in: the next request answers at once. In another browser, a third-party client
            // asks for consent after Google, as after a password.
            let again = try await b.get("/oauth/authorize" + OIDCFixture.query([("response_type", "code"), ("client_id", "portal")]))
            #expect(again.status == 302 && again.header("Location")?.hasPrefix("https://portal.example.com/cb?code=") == true)
            try await OIDCBrowser.with(s) { other in
                let (_, thirdPage) = try await Self.loginPage(other, client: "third", redirect: "https://third.example/cb")
                let consent = try await other.get(try await Self.throughGoogle(other, thirdPage))
                #expect(consent.status == 303 && consent.header("Location")?.hasPrefix(s.baseURL + "/oauth/consent?flow=") == true)
                let page = try await other.get(try #require(consent.header("Location")))
                #expect(page.status == 200 && page.body.contains("Allow access?"))
            }
        }
    }

    @Test(
        "step-up through Google: acr_values mfa, a user with TOTP on: the second page at the callback posts to the login page; the code signs in with amr fed otp mfa",
        .enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"), arguments: StoreKind.available)
    func googleStepUp(kind: StoreKind) async throws {
        try await Self.with(kind) { s, standIn, b in
            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login", body: #"{"id_token":"\#(try standIn.idToken("google"))"}"#)
            let access = try #require(native["access_token"])
            let secret = try #require(try await s.call(.POST, MFARoutesTests.mfa + "/totp", bearer: access)["secret"])
            let now = Int64(Date().timeIntervalSince1970)
            let confirmed = try await s.call(
                .POST, MFARoutesTests.mfa + "/totp/confirm",
                body: MFARoutesTests.json(["code": try await ExternalTool.oathtoolCode(secret, at: now)]),
                bearer: access)
            #expect(confirmed.status == 200, "\(confirmed.body)")
            let start = try await b.get(
                "/oauth/authorize"
                    + OIDCFixture.query([
                        ("response_type", "code"), ("client_id", "portal"), ("redirect_uri", "https://portal.example.com/cb"), ("scope", "openid"),
                        ("state", "rp-state"), ("nonce", "rp-nonce"), ("acr_values", "urn:tokentool:acr:mfa"),
                    ]))
            let loginURL = try #require(start.header("Location"))
            let page = try await b.get(try await Self.throughGoogle(b, try await b.get(loginURL).body))
            #expect(page.status == 200 && page.body.contains(#"autocomplete="one-time-code""#), "\(page.status) \(page.body.prefix(300))")
            let action = try #require(page.body.firstMatch(of: /<form method="post" action="([^"]+)">/)?.output.1)
            #expect(action.replacingOccurrences(of: "&amp;", with: "&") == loginURL)
            let token = String(try #require(page.body.firstMatch(of: /name="mfa_token" value="([^"]+)"/)?.output.1))
            let code = try await ExternalTool.oathtoolCode(secret, at: now + 30)
            let done = try await b.post(loginURL, [("csrf", try #require(OIDCFixture.csrf(page.body))), ("mfa_token", token), ("code", code)])
            let claims = try await Self.relyingParty(s, done)
            #expect(claims["amr"] == ["fed", "otp", "mfa"] && claims["acr"] == "urn:tokentool:acr:mfa", "\(claims)")
        }
    }

    @Test(
        "a provider's refusal or a refused token shows the login page with the message, whose form still signs in; a used state is the 400 page",
        arguments: StoreKind.available)
    func refusals(kind: StoreKind) async throws {
        try await Self.with(kind) { s, standIn, b in
            try await OIDCFixture.register(s, "person@example.com")
            let (url, html) = try await Self.loginPage(b)
            standIn.web.setAnswer(.deny)
            let callback = try await Self.throughGoogle(b, html)
            let denied = try await b.get(callback)
            #expect(denied.status == 200 && denied.header("Location") == nil && !denied.body.contains("_baas_error"), "\(denied.status)")
            #expect(denied.body.contains(#"id="problem""#) && denied.body.contains("did not sign you in (access_denied"), "\(denied.body)")
            #expect(denied.body.contains("action=\"\(url.replacingOccurrences(of: "&", with: "&amp;"))\"") && b.setCookies.isEmpty)
            #expect(denied.header("Content-Security-Policy")?.contains("form-action 'self' https://portal.example.com") == true)
            let reused = try await b.get(callback)
            #expect(reused.status == 400 && reused.body.contains("expired or was already used"))

            standIn.web.setAnswer(.approve)
            standIn.web.overrideClaims(["nonce": "the-nonce-of-another-sign-in"])
            let refused = try await b.get(try await Self.throughGoogle(b, html))
            #expect(refused.status == 200 && refused.body.contains("invalid_nonce") && b.setCookies.isEmpty, "\(refused.body)")
            standIn.web.overrideClaims([:])

            // The page shown at the callback posts to the flow's page, which still signs in; a web
            // sign-in started before then finds the flow ended: the 400 page.
            let pending = try await Self.throughGoogle(b, html)
            let csrf = try #require(OIDCFixture.csrf(refused.body))
            let ok = try await b.post(url, [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)])
            #expect(ok.status == 303 && ok.header("Location")?.hasPrefix("https://portal.example.com/cb?code=") == true)
            let late = try await b.get(pending)
            #expect(late.status == 400 && late.body.contains("expired or was already used") && late.header("Location") == nil)
            #expect(!s.logs.all.contains { $0.contains("standin-web-code") })
        }
    }
}
