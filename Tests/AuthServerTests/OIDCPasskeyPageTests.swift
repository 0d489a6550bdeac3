import CLIHarness
import Foundation
import JOSE
import Testing

/// Passkeys on the hosted login over HTTP, on both stores: the login page's "Sign in with a
/// passkey" (its options, its form's post of the assertion), the second page's passkey, their
/// refusals, the script and the page policy that lets it run. Chromium runs the same pages with a
/// virtual authenticator (Tests/Browser/passkey_test.py).
@Suite struct OIDCPasskeyPageTests {
    typealias P = PasskeyRoutesTests
    static let apps = #"""
        { "myapp": { "providers": { "local-userpass": { "auto_confirm": true }, "passkey": {} } },
          "strict": { "providers": { "local-userpass": {} } } }
        """#

    static func with<T>(_ kind: StoreKind, apps: String = apps, _ body: (LiveServer) async throws -> T) async throws -> T {
        try await LiveServer.with(kind, apps: apps, extra: OIDCFixture.extra(), files: OIDCFixture.files, body)
    }

    /// The options a page's passkey button asks for, with the page's hidden fields.
    static func options(_ b: OIDCBrowser, _ pageURL: String, _ fields: [(String, String)]) async throws -> JSONObject {
        let flow = try #require(OIDCFixture.parameters(b.url(pageURL))["flow"])
        let answer = try await b.post("/oauth/login/passkey?flow=" + flow, fields)
        #expect(answer.status == 200 && answer.header("Cache-Control") == "no-store", "\(answer.status) \(answer.body)")
        return try #require(answer.object["publicKey"]?.objectValue)
    }

    @Test(
        "the login page's passkey: options, the assertion posted with the page's form, amr hwk user mfa; the second page's: amr pwd hwk mfa; refusals show the page again",
        arguments: StoreKind.available)
    func hostedPasskey(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let user = try await P.user(s, "ada@example.com")
            let (registered, created) = try await P.registered(s, try #require(user["access_token"]))
            #expect(created.status == 201)
            var device = registered
            let script = try await s.call(.GET, "/oauth/passkey.js")
            #expect(
                script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8"
                    && script.body.contains("navigator.credentials.get"))
            #expect(script.header("X-Content-Type-Options") == "nosniff")
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, body) = try await OIDCLoginPageTests.openLogin(b, scope: "openid")
                #expect(body.contains(#"id="passkey""#) && body.contains(#"<script src="/oauth/passkey.js"></script>"#))
                #expect(!body.contains("<script>") && !body.contains("onclick"))
                let csp = try await b.get(url).header("Content-Security-Policy") ?? ""
                #expect(csp.contains("script-src 'self'") && csp.contains("connect-src 'self'") && !csp.contains("unsafe"))
                #expect(
                    try await b.post("/oauth/login/passkey?flow=" + (OIDCFixture.parameters(b.url(url))["flow"] ?? ""), [("csrf", "x")]).status == 401
                )

                let options = try await Self.options(b, url, [("csrf", csrf)])
                #expect(options["allowCredentials"]?.arrayValue == [] && options["rpId"]?.stringValue == P.rpID)
                let assertion = try device.get(challenge: try #require(options["challenge"]?.stringValue), rpID: P.rpID, origin: P.origin)
                let claims = try await OIDCTokenFixture.idTokenClaims(s, try await b.post(url, [("csrf", csrf), ("passkey", assertion.jsonString)]))
                #expect(claims["amr"] == ["hwk", "user", "mfa"] && claims["acr"] == "urn:tokentool:acr:mfa", "\(claims)")
                #expect(claims["sub"]?.stringValue == user["user_id"])
            }
            try await OIDCBrowser.with(s) { b in
                // A replayed assertion, and a field that is not one: the login page again, nothing signed in.
                let (url, csrf, _) = try await OIDCLoginPageTests.openLogin(b, scope: "openid")
                let options = try await Self.options(b, url, [("csrf", csrf)])
                let stale = try device.get(challenge: "c3RhbGU", rpID: P.rpID, origin: P.origin)
                let refused = try await b.post(url, [("csrf", csrf), ("passkey", stale.jsonString)])
                #expect(refused.status == 401 && refused.body.contains("The passkey was not accepted") && b.setCookies.isEmpty, "\(refused.status)")
                let hostile = try await b.post(url, [("csrf", csrf), ("passkey", #"{"id":[[[[[[[[1]]]]]]]]}"#)])
                #expect(hostile.status == 400 && hostile.body.contains(#"name="password""#))
                #expect(try await b.post(url, [("passkey", stale.jsonString)]).status == 403)

                // The password, then the second page's passkey.
                let step = try await b.post(url, [("csrf", csrf), ("email", "ada@example.com"), ("password", "correct horse")])
                // A user with a passkey alone: no code field, the passkey button (and a word for a browser without script).
                #expect(step.status == 200 && !step.body.contains(#"autocomplete="one-time-code""#) && step.body.contains("Use a passkey"))
                #expect(step.body.contains("use your passkey.") && step.body.contains("<noscript>"))
                let token = String(try #require(step.body.firstMatch(of: /name="mfa_token" value="([^"]+)"/)?.output.1))
                #expect(
                    try await b.post(
                        "/oauth/login/passkey?flow=" + (OIDCFixture.parameters(b.url(url))["flow"] ?? ""), [("csrf", csrf), ("mfa_token", "forged")]
                    ).status == 401)
                let second = try await Self.options(b, url, [("csrf", csrf), ("mfa_token", token)])
                #expect(second["allowCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == [device.id])
                let wrongOrigin = try device.get(challenge: try #require(second["challenge"]?.stringValue), rpID: P.rpID, origin: "http://evil.test")
                let again = try await b.post(url, [("csrf", csrf), ("mfa_token", token), ("passkey", wrongOrigin.jsonString)])
                #expect(again.status == 401 && again.body.contains("The passkey was not accepted") && again.body.contains(token))
                let fresh = try await Self.options(b, url, [("csrf", csrf), ("mfa_token", token)])
                let right = try device.get(challenge: try #require(fresh["challenge"]?.stringValue), rpID: P.rpID, origin: P.origin)
                let claims = try await OIDCTokenFixture.idTokenClaims(
                    s, try await b.post(url, [("csrf", csrf), ("mfa_token", token), ("passkey", right.jsonString)]))
                #expect(claims["amr"] == ["pwd", "hwk", "mfa"] && claims["acr"] == "urn:tokentool:acr:mfa", "\(claims)")
                _ = options
            }
        }
    }

    @Test(
        "a disabled user with a second factor: the right password shows the login page saying so, never the second page",
        arguments: [StoreKind.sqlite])
    func disabledUser(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let user = try await P.user(s, "ada@example.com")
            #expect(try await P.registered(s, try #require(user["access_token"])).1.status == 201)
            try await #require(s.server.apps["myapp"]).sessions.setUserDisabled(id: try #require(user["user_id"]), true)
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await OIDCLoginPageTests.openLogin(b, scope: "openid")
                let answer = try await b.post(url, [("csrf", csrf), ("email", "ada@example.com"), ("password", "correct horse")])
                #expect(answer.body.contains("This account is disabled.") && !answer.body.contains("mfa_token"), "\(answer.body.prefix(400))")
                #expect(b.setCookies.isEmpty)
            }
        }
    }

    @Test("an app without the passkey provider: no button, no script, the policy as before; its options route refuses", arguments: [StoreKind.sqlite])
    func withoutProvider(kind: StoreKind) async throws {
        try await Self.with(kind, apps: OIDCFixture.apps) { s in
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, body) = try await OIDCLoginPageTests.openLogin(b)
                #expect(!body.contains("passkey") && !body.contains("<script"))
                OIDCAuthorizeTests.expectPageHeaders(try await b.get(url))
                let flow = OIDCFixture.parameters(b.url(url))["flow"] ?? ""
                #expect(try await b.post("/oauth/login/passkey?flow=" + flow, [("csrf", csrf)]).status == 404)
            }
        }
    }
}
