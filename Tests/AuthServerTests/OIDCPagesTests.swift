import Foundation
import Testing
@testable import AuthServer

/// The OpenID Provider's hosted pages: every dynamic value escaped, a CSRF field in every form,
/// no link on the error page, and the headers (the policy's `form-action` names the flow's
/// redirect origin and nothing else).
@Suite struct OIDCPagesTests {
    static let hostile = #""><script>alert(1)</script>'&"#
    static let escaped = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;&amp;"

    @Test func everyDynamicValueIsEscaped() {
        let login = OIDCPages.render(
            .login(
                .init(
                    clientName: Self.hostile, csrf: Self.hostile, email: Self.hostile, message: .upstream(Self.hostile),
                    providers: [.init(title: "Google", href: "/start?x=\"><script>")])), app: Self.hostile)
        let consent = OIDCPages.render(
            .consent(.init(clientName: Self.hostile, csrf: Self.hostile, scopes: ["openid", Self.hostile], email: Self.hostile)), app: Self.hostile)
        let error = OIDCPages.render(.error(message: Self.hostile), app: Self.hostile)
        for html in [login, consent, error] {
            #expect(!html.contains("<script"))
            #expect(html.contains(Self.escaped))
        }
        #expect(login.contains("value=\"\(Self.escaped)\""))  // the email and the CSRF token
        #expect(login.contains(#"href="/start?x=&quot;&gt;&lt;script&gt;""#))
        #expect(consent.contains("<li>\(Self.escaped)</li>"))
    }

    @Test func everyFormCarriesTheCSRFTokenAndPostsToItsOwnURL() {
        let login = OIDCPages.render(.login(.init(clientName: "Portal", csrf: "tok-1")), app: "A")
        let consent = OIDCPages.render(.consent(.init(clientName: "Portal", csrf: "tok-2", scopes: ["openid", "email"])), app: "A")
        for (html, token) in [(login, "tok-1"), (consent, "tok-2")] {
            #expect(html.contains(#"<input type="hidden" name="csrf" value="\#(token)">"#))
            #expect(html.contains(#"<form method="post">"#) && !html.contains("action="))
            #expect(html.components(separatedBy: "<form").count == 2)
        }
        #expect(login.contains(#"name="email""#) && login.contains(#"name="password""#) && login.contains(#"type="password""#))
        #expect(consent.contains(#"name="decision" value="allow""#) && consent.contains(#"name="decision" value="deny""#))
        #expect(consent.contains("Your email address") && consent.contains(">Portal<"))
    }

    @Test func loginPrefillsTheHintShowsOneButtonPerProviderAndItsMessage() {
        let html = OIDCPages.render(
            .login(
                .init(
                    clientName: "Portal", csrf: "t", email: "ann@example.com", message: .wrongCredentials,
                    providers: [.init(title: "Google", href: "/g"), .init(title: "Apple", href: "/a")])), app: "A")
        #expect(html.contains(#"value="ann@example.com""#))
        #expect(html.contains(#"<a class="alt" href="/g">Continue with Google</a>"#) && html.contains("Continue with Apple"))
        #expect(!html.contains("Continue with Facebook"))
        #expect(html.contains("The email or password is wrong."))
        #expect(!OIDCPages.render(.login(.init(clientName: "P", csrf: "t")), app: "A").contains("class=\"error\""))
        #expect(OIDCPages.status(of: .login(.init(clientName: "P", csrf: "t", message: .wait(seconds: 3)))) == 429)
        #expect(OIDCPages.status(of: .login(.init(clientName: "P", csrf: "t", message: .wrongCredentials))) == 200)
    }

    @Test func aLoginPageShownAtACallbackPostsToItsFlowsURL() {
        let html = OIDCPages.render(
            .login(.init(clientName: "P", csrf: "t", message: .upstream("Google said no"), action: "https://auth.example/oauth/login?flow=a&b")),
            app: "A")
        #expect(html.contains(#"<form method="post" action="https://auth.example/oauth/login?flow=a&amp;b">"#))
        #expect(html.contains(#"<p class="error" id="problem">Google said no</p>"#))
    }

    @Test func theErrorPageIsA400WithNoLink() {
        let html = OIDCPages.render(.error(message: "The redirect_uri is not registered for this client."), app: "A")
        #expect(OIDCPages.status(of: .error(message: "x")) == 400)
        #expect(!html.contains("<a ") && !html.contains("href") && !html.contains("<form"))
        #expect(html.contains("The redirect_uri is not registered for this client."))
        let out = OIDCPages.render(.signedOut, app: "A")
        #expect(out.contains("You are signed out") && !out.contains("<a "))
    }

    @Test func headersAllowOnlyTheFlowsRedirectOriginAsAFormTarget() throws {
        func csp(_ uri: String?) throws -> String {
            let headers = Dictionary(uniqueKeysWithValues: OIDCPages.headers(redirectURI: uri).map { ($0.name, $0.value) })
            #expect(headers["Referrer-Policy"] == "no-referrer" && headers["Cache-Control"] == "no-store")
            #expect(headers["X-Frame-Options"] == "DENY")
            #expect(headers["Content-Type"] == "text/html; charset=utf-8")
            return try #require(headers["Content-Security-Policy"])
        }
        let plain = try csp(nil)
        #expect(plain.contains("form-action 'self';") && plain.contains("frame-ancestors 'none'"))
        #expect(!plain.contains("script-src") && !plain.contains("unsafe-inline"))
        #expect(try csp("https://Portal.example.com/cb?x=1").contains("form-action 'self' https://portal.example.com;"))
        #expect(try csp("http://127.0.0.1:5173/cb").contains("form-action 'self' http://127.0.0.1:5173;"))
        #expect(try csp("http://[::1]:8080/cb").contains("form-action 'self' http:;"))
        // A host that could end the directive is never spelled into the policy.
        #expect(OIDCPages.formActionSource(redirectURI: "https://a;script-src*/cb") == "https:")
        #expect(OIDCPages.formActionSource(redirectURI: "not a uri") == "'none'")
    }
}
