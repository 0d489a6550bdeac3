import Foundation
import JOSE
import Testing
@testable import AuthServer
@_spi(Testing) @testable import Sessions
import OIDCProvider

/// The authorization endpoint over HTTP on both stores: the error page for a request that
/// cannot go back to its client, RFC 6749 errors at the redirect URI with `state` and `iss`,
/// `prompt=none` without a session, and the code sent at once to a first-party client once the
/// browser is signed in (the code read back through the store's redemption).
@Suite struct OIDCAuthorizeTests {
    static let portal = [("response_type", "code"), ("client_id", "portal"), ("redirect_uri", "https://portal.example.com/cb")]

    static func authorize(_ extra: [(String, String)], base: [(String, String)] = portal) -> String {
        "/oauth/authorize" + OIDCFixture.query(base + extra)
    }

    /// Headers every hosted page carries.
    static func expectPageHeaders(_ a: LiveServer.Answer) {
        #expect(a.header("Content-Type") == "text/html; charset=utf-8")
        #expect(a.header("Cache-Control") == "no-store" && a.header("Referrer-Policy") == "no-referrer")
        // RFC 7034, for old web views that ignore frame-ancestors.
        #expect(a.header("X-Frame-Options") == "DENY")
        let csp = a.header("Content-Security-Policy") ?? ""
        #expect(csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'") && !csp.contains("script-src"))
    }

    @Test("an unknown client or an unregistered redirect URI: the 400 error page, never a redirect (GET and POST)", arguments: StoreKind.available)
    func errorPage(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCBrowser.with(s) { b in
                let evil = [("response_type", "code"), ("client_id", "portal"), ("redirect_uri", "https://evil.example/cb"), ("state", "s1")]
                for query in [
                    Self.authorize([], base: [("response_type", "code"), ("client_id", "nobody"), ("redirect_uri", "https://evil.example/cb")]),
                    Self.authorize([], base: evil), "/oauth/authorize",
                ] {
                    let a = try await b.get(query)
                    #expect(a.status == 400 && a.header("Location") == nil && a.body.contains("id=\"problem\""))
                    Self.expectPageHeaders(a)
                    #expect(!a.body.contains("evil.example"))
                }
                let posted = try await b.post("/oauth/authorize", evil)
                #expect(posted.status == 400 && posted.header("Location") == nil)
            }
        }
    }

    @Test("other faults go to the redirect URI with error, error_description, state and iss", arguments: StoreKind.available)
    func errorsRedirect(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCBrowser.with(s) { b in
                let cases: [([(String, String)], String)] = [
                    ([("response_type", "token"), ("client_id", "portal"), ("state", "st&=1")], "unsupported_response_type"),
                    ([("client_id", "portal"), ("state", "st&=1")], "invalid_request"),
                    (Self.portal + [("state", "st&=1"), ("request", "x")], "request_not_supported"),
                    (
                        Self.portal + [
                            ("state", "st&=1"), ("code_challenge", String(repeating: "a", count: 43)), ("code_challenge_method", "plain"),
                        ],
                        "invalid_request"
                    ),
                    (Self.portal + [("state", "st&=1"), ("prompt", "none")], "login_required"),
                    // A public client without PKCE.
                    (
                        [("response_type", "code"), ("client_id", "spa"), ("redirect_uri", "http://127.0.0.1:4711/cb"), ("state", "st&=1")],
                        "invalid_request"
                    ),
                ]
                for (pairs, error) in cases {
                    for a in [try await b.get(Self.authorize([], base: pairs)), try await b.post("/oauth/authorize", pairs)] {
                        #expect(a.status == 302, "\(pairs)")
                        let location = a.header("Location") ?? ""
                        let p = OIDCFixture.parameters(location)
                        #expect(location.hasPrefix(pairs.contains { $0.1 == "spa" } ? "http://127.0.0.1:4711/cb?" : "https://portal.example.com/cb?"))
                        #expect(
                            p["error"] == error && p["state"] == "st&=1" && p["iss"] == "http://auth.test" && p["error_description"] != nil, "\(p)")
                        #expect(p["code"] == nil && a.header("Cache-Control") == "no-store")
                    }
                }
            }
        }
    }

    @Test(
        "sign in on the login page, get the code; then a first-party client gets its code at once; prompt=login and max_age ask again",
        arguments: StoreKind.available)
    func loginThenSession(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            let userID = try #require(try await OIDCFixture.register(s, "person@example.com"))
            try await OIDCBrowser.with(s) { b in
                let verifier = String(repeating: "v", count: 43)
                let pkce = [("code_challenge", PKCE.challenge(forVerifier: verifier)), ("code_challenge_method", "S256")]
                let first = try await b.get(Self.authorize([("scope", "openid email"), ("state", "one"), ("nonce", "n1")] + pkce))
                #expect(first.status == 302)
                let loginURL = try #require(first.header("Location"))
                #expect(loginURL.hasPrefix("http://auth.test/oauth/login?flow="))
                let page = try await b.get(loginURL)
                #expect(page.status == 200 && page.body.contains("Portal"))
                Self.expectPageHeaders(page)
                #expect(page.header("Content-Security-Policy")?.contains("form-action 'self' https://portal.example.com;") == true)
                let csrf = try #require(OIDCFixture.csrf(page.body))

                let signedIn = try await b.post(loginURL, [("csrf", csrf), ("email", "Person@Example.com"), ("password", OIDCFixture.password)])
                #expect(signedIn.status == 303)
                let p = OIDCFixture.parameters(signedIn.header("Location"))
                #expect(signedIn.header("Location")?.hasPrefix("https://portal.example.com/cb?code=") == true)
                #expect(p["state"] == "one" && p["iss"] == "http://auth.test")
                let cookie = try #require(b.setCookies.last)
                #expect(cookie.hasPrefix("tokentool-op-myapp=") && cookie.contains("; Path=/; HttpOnly; SameSite=Lax") && !cookie.contains("Secure"))

                // The code is the user's, bound to the request.
                let code = try #require(p["code"])
                let now = Int64(Date().timeIntervalSince1970)
                let redeemed = try await s.server.store.redeemAuthorizationCode(
                    code, clientID: "portal", app: "myapp", redirectURI: "https://portal.example.com/cb", verifier: verifier, at: now)
                guard case .redeemed(let c) = redeemed else { Issue.record("not redeemed: \(redeemed)"); return }
                #expect(c.userID == userID && c.amr == ["pwd"] && c.binding.nonce == "n1" && c.binding.scopes == ["openid", "email"])

                // The flow was single use.
                let again = try await b.post(loginURL, [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)])
                #expect(again.status == 400 && again.header("Location") == nil)
                #expect(try await b.get(loginURL).status == 400)

                // Signed in: a first-party client gets its code at once, prompt=none too; the same sid.
                for extra in [[("state", "two")], [("state", "two"), ("prompt", "none")]] {
                    let direct = try await b.get(Self.authorize(extra))
                    #expect(direct.status == 302)
                    let q = OIDCFixture.parameters(direct.header("Location"))
                    #expect(q["state"] == "two" && q["code"] != nil && q["error"] == nil)
                    let r = try await s.server.store.redeemAuthorizationCode(
                        q["code"] ?? "", clientID: "portal", app: "myapp", redirectURI: "https://portal.example.com/cb", verifier: nil, at: now)
                    guard case .redeemed(let d) = r else { Issue.record("not redeemed: \(r)"); return }
                    #expect(d.userID == userID && d.opSessionID == c.opSessionID && d.authTime == c.authTime)
                }
                // prompt=login, and a max_age already exceeded, show the login page again.
                try await Task.sleep(for: .milliseconds(1100))
                for extra in [[("prompt", "login")], [("max_age", "0")]] {
                    let again = try await b.get(Self.authorize(extra))
                    #expect(again.status == 302 && again.header("Location")?.hasPrefix("http://auth.test/oauth/login?flow=") == true)
                }
                let none = try await b.get(Self.authorize([("max_age", "0"), ("prompt", "none")]))
                #expect(OIDCFixture.parameters(none.header("Location"))["error"] == "login_required")
            }
        }
    }

    @Test(
        "id_token_hint: another user's is login_required with prompt=none, else the login page; a forged one is invalid_request",
        arguments: StoreKind.available)
    func idTokenHint(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                let flow = try #require(try await b.get(Self.authorize([])).header("Location"))
                let csrf = try #require(OIDCFixture.csrf(try await b.get(flow).body))
                _ = try await b.post(flow, [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)])

                let ring = s.server.service.keyRing
                let signer = try await ring.signer(for: ring.activeKey())
                let now = Int64(Date().timeIntervalSince1970)
                var claims = ClaimSet()
                claims["iss"] = "http://auth.test"
                claims["sub"] = "someone-else"
                claims["aud"] = "portal"
                claims["iat"] = .int(now)
                claims["exp"] = .int(now + 60)
                let hint = try signer.sign(claims, header: ["typ": "JWT"])
                let none = try await b.get(Self.authorize([("prompt", "none"), ("id_token_hint", hint)]))
                #expect(OIDCFixture.parameters(none.header("Location"))["error"] == "login_required")
                let page = try await b.get(Self.authorize([("id_token_hint", hint)]))
                #expect(page.header("Location")?.hasPrefix("http://auth.test/oauth/login?flow=") == true)
                // Whoever signs in must then be the hinted user.
                let hinted = try #require(page.header("Location"))
                let token = try #require(OIDCFixture.csrf(try await b.get(hinted).body))
                let other = try await b.post(hinted, [("csrf", token), ("email", "person@example.com"), ("password", OIDCFixture.password)])
                #expect(other.status == 200 && other.body.contains("The app asked for another account"))

                let forged = try await b.get(Self.authorize([("id_token_hint", hint.dropLast(4) + "AAAA")]))
                #expect(OIDCFixture.parameters(forged.header("Location"))["error"] == "invalid_request")
            }
        }
    }
}
