import CLIHarness
import Foundation
import JOSE
import Testing
@testable import AuthServer
import Sessions
import OIDCProvider

/// The hosted login page over HTTP on both stores: the App Services login's one message for an
/// unknown email and a wrong password, its limits, the unconfirmed address, CSRF and the
/// cross-site check, escaping of what the request and the config put on the page.
@Suite struct OIDCLoginPageTests {
    /// The first-party client's authorization request, without its scope.
    static let portalPairs = [("response_type", "code"), ("client_id", "portal"), ("redirect_uri", "https://portal.example.com/cb"), ("state", "s1")]

    /// A login page of a new flow for `client`, its URL and CSRF token.
    static func openLogin(
        _ b: OIDCBrowser, client: String = "portal", redirect: String = "https://portal.example.com/cb", hint: String? = nil, scope: String? = nil
    ) async throws -> (url: String, csrf: String, body: String) {
        var pairs = [("response_type", "code"), ("client_id", client), ("redirect_uri", redirect)]
        if let hint { pairs.append(("login_hint", hint)) }
        if let scope { pairs.append(("scope", scope)) }
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
        "an account with a second factor: the password leads to the code page, nothing signed in yet; a wrong code asks again; the right one signs in with amr pwd otp mfa; a recovery code too",
        .enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"), arguments: StoreKind.available)
    func secondStep(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            let (secret, recoveryCodes, _) = try await MFARoutesTests.enrolled(s, "second@example.com")
            let password = [("email", "second@example.com"), ("password", "correct horse")]
            let authorize = "/oauth/authorize" + OIDCFixture.query([("response_type", "code"), ("client_id", "portal"), ("scope", "openid")])
            /// The code page after the password: its step token.
            func codePage(_ b: OIDCBrowser, _ url: String, _ csrf: String) async throws -> String {
                let a = try await b.post(url, [("csrf", csrf)] + password)
                #expect(a.status == 200 && a.header("Location") == nil && b.setCookies.isEmpty, "\(a.status) \(a.body)")
                #expect(a.body.contains(#"autocomplete="one-time-code""#) && !a.body.contains(#"name="password""#))
                OIDCAuthorizeTests.expectPageHeaders(a)
                return String(try #require(a.body.firstMatch(of: /name="mfa_token" value="([^"]+)"/)?.output.1))
            }
            func idTokenClaims(_ answer: LiveServer.Answer) async throws -> ClaimSet { try await OIDCTokenFixture.idTokenClaims(s, answer) }
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b, scope: "openid")
                let token = try await codePage(b, url, csrf)
                // Nothing is signed in yet: another request asks for the login page.
                #expect(try await b.get(authorize).header("Location")?.contains("/oauth/login?flow=") == true)
                let now = Int64(Date().timeIntervalSince1970)
                let stale = try await ExternalTool.oathtoolCode(secret, at: now - 600)
                let wrong = try await b.post(url, [("csrf", csrf), ("mfa_token", token), ("code", stale)])
                #expect(wrong.status == 401 && wrong.body.contains("The code is wrong") && wrong.body.contains(token) && b.setCookies.isEmpty)
                #expect(try await b.post(url, [("csrf", "x"), ("mfa_token", token), ("code", stale)]).status == 403)
                let forged = try await b.post(url, [("csrf", csrf), ("mfa_token", "forged"), ("code", stale)])
                #expect(forged.status == 401 && forged.body.contains(#"name="password""#))
                let right = try await ExternalTool.oathtoolCode(secret, at: now + 30)
                let claims = try await idTokenClaims(try await b.post(url, [("csrf", csrf), ("mfa_token", token), ("code", right)]))
                #expect(claims["amr"] == ["pwd", "otp", "mfa"] && claims["acr"] == "urn:tokentool:acr:mfa", "\(claims)")
                #expect(!b.setCookies.isEmpty)
                // The flow ended with its code: posting the step again is the 400 page.
                #expect(try await b.post(url, [("csrf", csrf), ("mfa_token", token), ("code", right)]).status == 400)
            }
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b, scope: "openid")
                let token = try await codePage(b, url, csrf)
                let claims = try await idTokenClaims(try await b.post(url, [("csrf", csrf), ("mfa_token", token), ("code", recoveryCodes[0])]))
                #expect(claims["amr"] == ["pwd", "otp", "mfa"])
            }
            // A second step an earlier release stored (purpose op-mfa, payload "HANDLE METHODS") still signs in.
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b, scope: "openid")
                let handle = try #require(OIDCFixture.parameters(url)["flow"])
                let account = try await s.server.store.read { tx in try await tx.account(app: "myapp", emailKey: "second@example.com") }
                let userID = try #require(account?.userID)
                let now = Int64(Date().timeIntervalSince1970)
                try await s.server.store.transaction { tx in
                    try await tx.insertOneTimeToken(
                        OneTimeTokenRecord(
                            purpose: OneTimeTokenPurpose(rawValue: "op-mfa"), hash: OneTimeToken.hash("an-earlier-release-step"), app: "myapp",
                            subject: userID, payload: handle + " local-userpass", createdAt: now, expiresAt: now + 300))
                }
                let claims = try await idTokenClaims(
                    try await b.post(url, [("csrf", csrf), ("mfa_token", "an-earlier-release-step"), ("code", recoveryCodes[1])]))
                #expect(claims["amr"] == ["pwd", "otp", "mfa"] && claims.subject == userID)
            }
        }
    }

    @Test(
        "step-up: acr_values mfa over a password-only OP session asks for the code alone, then answers at once; prompt=none is interaction_required; a user with no factor gets unmet_authentication_requirements",
        .enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"), arguments: StoreKind.available)
    func stepUp(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            func authorize(_ extra: [(String, String)]) -> String {
                "/oauth/authorize" + OIDCFixture.query([("response_type", "code"), ("client_id", "portal"), ("scope", "openid")] + extra)
            }
            let mfa = [("acr_values", "urn:tokentool:acr:mfa")]
            for email in ["second@example.com", "plain@example.com"] {
                let registered = try await s.call(
                    .POST, MFARoutesTests.userpass + "/register", body: MFARoutesTests.json(["email": email, "password": "correct horse"]))
                #expect(registered.status == 201)
            }
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await Self.openLogin(b)
                let first = try await b.post(url, [("csrf", csrf), ("email", "second@example.com"), ("password", "correct horse")])
                #expect(first.status == 303 && first.header("Location")?.contains("code=") == true)
                let (secret, _, _) = try await MFARoutesTests.enableTOTP(s, "second@example.com")
                let none = try await b.get(authorize(mfa + [("prompt", "none")]))
                #expect(OIDCFixture.parameters(none.header("Location"))["error"] == "interaction_required")
                let start = try await b.get(authorize(mfa))
                let page = try await b.get(try #require(start.header("Location")))
                #expect(page.status == 200 && page.body.contains(#"autocomplete="one-time-code""#) && !page.body.contains(#"name="password""#))
                let token = String(try #require(page.body.firstMatch(of: /name="mfa_token" value="([^"]+)"/)?.output.1))
                let pageCSRF = try #require(OIDCFixture.csrf(page.body))
                let code = try await ExternalTool.oathtoolCode(secret, at: Int64(Date().timeIntervalSince1970) + 30)
                let done = try await b.post(try #require(start.header("Location")), [("csrf", pageCSRF), ("mfa_token", token), ("code", code)])
                #expect(done.status == 303, "\(done.status) \(done.body.prefix(300))")
                let tokens = try await s.form(
                    "/oauth/token",
                    [
                        ("grant_type", "authorization_code"), ("code", try #require(OIDCFixture.parameters(done.header("Location"))["code"])),
                        ("redirect_uri", "https://portal.example.com/cb"),
                    ], headers: [OIDCTokenFixture.basic()])
                let claims = try await OIDCTokenFixture.verifyIDToken(s, try #require(tokens["id_token"]))
                #expect(claims["amr"] == ["pwd", "otp", "mfa"] && claims["acr"] == "urn:tokentool:acr:mfa", "\(claims)")
                // The OP session has the second factor now: the next step-up request answers at once.
                #expect(OIDCFixture.parameters(try await b.get(authorize(mfa + [("prompt", "none")])).header("Location"))["code"] != nil)
            }
            try await OIDCBrowser.with(s) { b in
                let start = try await b.get(authorize(mfa))
                let url = try #require(start.header("Location"))
                let csrf = try #require(OIDCFixture.csrf(try await b.get(url).body))
                let refused = try await b.post(url, [("csrf", csrf), ("email", "plain@example.com"), ("password", "correct horse")])
                #expect(refused.status == 303 && OIDCFixture.parameters(refused.header("Location"))["error"] == "unmet_authentication_requirements")
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
                // The authorization request that stored the flow counted first (the contract: a stored flow counts).
                #expect(statuses == [200, 429, 429])
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
