import Foundation
import Testing
@testable import AuthServer
import Sessions

/// The hosted login page over HTTP on both stores: the App Services login's one message for an
/// unknown email and a wrong password, its limits, the unconfirmed address, CSRF and the
/// cross-site check, escaping of what the request and the config put on the page.
@Suite struct OIDCLoginPageTests {
    /// A login page of a new flow for `client`, its URL and CSRF token.
    static func openLogin(_ b: OIDCBrowser, client: String = "portal", redirect: String = "https://portal.example.com/cb", hint: String? = nil)
        async throws -> (url: String, csrf: String, body: String)
    {
        var pairs = [("response_type", "code"), ("client_id", client), ("redirect_uri", redirect)]
        if let hint { pairs.append(("login_hint", hint)) }
        let start = try await b.get("/oauth/authorize" + OIDCFixture.query(pairs))
        let url = try #require(start.header("Location"))
        let page = try await b.get(url)
        #expect(page.status == 200)
        return (url, try #require(OIDCFixture.csrf(page.body)), page.body)
    }

    @Test("one message for an unknown email and a wrong password; the email stays; login_hint prefills it, escaped", arguments: StoreKind.available)
    func wrongCredentials(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                let hostile = #""><script>alert(1)</script>@x.example"#
                let (url, csrf, body) = try await Self.openLogin(b, hint: hostile)
                #expect(!body.contains("<script>") && body.contains("value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;@x.example\""))
                var bodies: [String] = []
                for email in ["person@example.com", "nobody@example.com"] {
                    let a = try await b.post(url, [("csrf", csrf), ("email", email), ("password", "wrong password 1")])
                    #expect(a.status == 200 && a.header("Location") == nil && b.setCookies.isEmpty)
                    #expect(a.body.contains("The email or password is wrong.") && a.body.contains("value=\"\(email)\""))
                    OIDCAuthorizeTests.expectPageHeaders(a)
                    bodies.append(a.body.replacingOccurrences(of: email, with: "E"))
                }
                #expect(bodies[0] == bodies[1])
                let empty = try await b.post(url, [("csrf", csrf)])
                #expect(empty.status == 200 && empty.body.contains("The email or password is wrong."))
                // The flow is still good for the right password.
                let ok = try await b.post(url, [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)])
                #expect(ok.status == 303 && ok.header("Location")?.hasPrefix("https://portal.example.com/cb?code=") == true)
            }
        }
    }

    @Test(
        "an account with a second factor is not signed in by its password alone: the page says so, no OP session, no code",
        arguments: StoreKind.available)
    func secondFactorNotSkipped(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            _ = try await MFARoutesTests.enrolled(s, "second@example.com")
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b)
                let a = try await b.post(url, [("csrf", csrf), ("email", "second@example.com"), ("password", "correct horse")])
                #expect(a.status == 401 && a.header("Location") == nil && b.setCookies.isEmpty, "\(a.status) \(a.body)")
                #expect(a.body.contains("second factor"))
                // Nothing was signed in: the next authorization asks for the login page again.
                let again = try await b.get(
                    "/oauth/authorize"
                        + OIDCFixture.query([
                            ("response_type", "code"), ("client_id", "portal"),
                            ("redirect_uri", "https://portal.example.com/cb"),
                        ]))
                #expect(again.status == 302 && again.header("Location")?.contains("/oauth/login?flow=") == true)
            }
        }
    }

    @Test("failed_login_per_account and login_per_address answer 429 with Retry-After and the page saying to wait", arguments: StoreKind.available)
    func throttled(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind, limits: #""limits": { "failed_login_per_account": "2/1h" },"#) { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b)
                for _ in 0..<2 {
                    #expect(try await b.post(url, [("csrf", csrf), ("email", "person@example.com"), ("password", "wrong password")]).status == 200)
                }
                let a = try await b.post(url, [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)])
                #expect(a.status == 429 && Int(a.header("Retry-After") ?? "") ?? 0 > 0 && a.body.contains("Too many attempts: wait"))
                // The App Services login counts the same failures.
                let api = try await s.call(
                    .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/login",
                    body: AccountRoutesTests.json(["username": "person@example.com", "password": OIDCFixture.password]))
                #expect(api.status == 429)
            }
        }
        try await OIDCFixture.with(kind, limits: #""limits": { "login_per_address": "2/1h" },"#) { s in
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b)
                var statuses: [Int] = []
                for _ in 0..<3 { statuses.append(try await b.post(url, [("csrf", csrf), ("email", "a@example.com"), ("password", "p")]).status) }
                #expect(statuses == [200, 200, 429])
            }
        }
    }

    @Test("an unconfirmed address is told to confirm first", arguments: StoreKind.available)
    func unconfirmed(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "late@example.com", app: "strict")
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b, client: "late", redirect: "https://late.example/cb")
                let a = try await b.post(url, [("csrf", csrf), ("email", "late@example.com"), ("password", OIDCFixture.password)])
                #expect(a.status == 200 && a.body.contains("Confirm your email address first") && b.setCookies.isEmpty)
            }
        }
    }

    @Test("a post without the flow's CSRF token, or from another site, is refused (403) and signs nobody in", arguments: StoreKind.available)
    func csrf(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b)
                let fields = [("email", "person@example.com"), ("password", OIDCFixture.password)]
                let refused = [
                    try await b.post(url, fields),
                    try await b.post(url, [("csrf", String(csrf.reversed()))] + fields),
                    try await b.post(url, [("csrf", csrf)] + fields, headers: [("Origin", "https://evil.example")]),
                    try await b.post(url, [("csrf", csrf)] + fields, headers: [("Sec-Fetch-Site", "cross-site")]),
                ]
                for a in refused {
                    #expect(a.status == 403 && a.header("Location") == nil && a.body.contains("The form had expired"))
                }
                #expect(b.setCookies.isEmpty)
                let ok = try await b.post(
                    url, [("csrf", csrf)] + fields, headers: [("Origin", "http://auth.test"), ("Sec-Fetch-Site", "same-origin")])
                #expect(ok.status == 303)
            }
        }
    }

    @Test(
        "an https public_url: the cookie is __Host- and Secure, the bare name is not read, a post from its http origin is refused",
        arguments: StoreKind.available)
    func secureCookie(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind, publicURL: "https://auth.test") { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b)
                #expect(url.hasPrefix("https://auth.test/oauth/login?flow="))
                let fields = [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)]
                #expect(try await b.post(url, fields, headers: [("Origin", "http://auth.test")]).status == 403)
                let ok = try await b.post(url, fields, headers: [("Origin", "https://auth.test")])
                #expect(ok.status == 303 && OIDCFixture.parameters(ok.header("Location"))["iss"] == "https://auth.test")
                let cookie = try #require(b.setCookies.last)
                #expect(cookie.hasPrefix("__Host-tokentool-op-myapp=") && cookie.hasSuffix("; Path=/; HttpOnly; SameSite=Lax; Secure"))
                let token = try #require(b.cookies["__Host-tokentool-op-myapp"])
                let none = "/oauth/authorize" + OIDCFixture.query(OIDCAuthorizeTests.portal + [("prompt", "none")])
                #expect(OIDCFixture.parameters(try await b.get(none).header("Location"))["code"] != nil)
                b.cookies = ["tokentool-op-myapp": token]
                #expect(OIDCFixture.parameters(try await b.get(none).header("Location"))["error"] == "login_required")
            }
        }
    }

    @Test("unknown, malformed and expired flow handles get the 400 error page", arguments: StoreKind.available)
    func unknownFlows(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCBrowser.with(s) { b in
                guard
                    case .valid(let request) = OIDCAuthorizationRequest.parse(
                        [("response_type", "code"), ("client_id", "portal")], clients: s.server.config.oidcClients, issuer: "http://auth.test")
                else { Issue.record("not valid"); return }
                let old = Int64(Date().timeIntervalSince1970) - OIDCLoginFlow.lifetime - 1
                let (expired, _) = try await s.server.store.startLoginFlow(request, at: old)
                for handle in [expired, "nonsense", String(repeating: "a", count: 43) + ".portal", ""] {
                    for path in [OIDCAuthorizeRoutes.loginPath, OIDCAuthorizeRoutes.consentPath] {
                        let a = try await b.get(path + "?flow=" + handle)
                        #expect(a.status == 400 && a.body.contains("expired or was already used"))
                        #expect(try await b.post(path + "?flow=" + handle, [("csrf", "x")]).status == 400)
                    }
                }
            }
        }
    }
}
