@testable import AuthServer
import Foundation
import JOSE
import ProviderStandIn
import Testing
import OIDCProvider

/// The contract's "Flows are bound to the browser that starts them" (login CSRF), over HTTP on both
/// stores, with two browsers of their own cookie jars: the attacker starts a flow (a hosted
/// login, Google's web sign-in from the login page or realm-web's redirect flow, Apple's
/// `form_post`), and the victim's browser, signed in as itself, is made to post its form or open
/// its callback URL: the 400 page, no sign-in, its own OP session untouched, never `#_baas_ua`.
/// With the binding, the flow's own browser posting `Origin: null` without Fetch Metadata (old
/// Safari) signs in; a cross-site post is still refused.
@Suite("Flows bound to the browser", .serialized)
struct FlowBindingTests {
    typealias B = WebSignInBrowser
    typealias H = WebSignInHostedLoginTests

    /// The victim's OP session is the one it had: same cookie, still live and its own user's.
    static func expectUntouched(_ s: LiveServer, _ victim: OIDCBrowser, cookie: String?, user: String?, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let now = Int64(Date().timeIntervalSince1970)
        #expect(victim.cookies["tokentool-op-myapp"] == cookie, "the victim's OP cookie changed", sourceLocation: sourceLocation)
        let session = try await s.server.store.opSession(token: try #require(cookie, sourceLocation: sourceLocation), app: "myapp", at: now)
        #expect(session?.userID == user, "the victim's OP session ended or changed hands", sourceLocation: sourceLocation)
    }

    @Test("the hosted login: another browser's post of the flow's form is the 400 page; Origin: null from its own browser signs in", arguments: StoreKind.available)
    func hostedLogin(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            let victimID = try #require(try await OIDCFixture.register(s, "victim@example.com"))
            try await OIDCFixture.register(s, "attacker@example.com")
            try await OIDCBrowser.with(s) { attacker in
                try await OIDCBrowser.with(s) { victim in
                    try await OIDCConsentTests.signIn(victim, "victim@example.com")
                    let victimCookie = victim.cookies["tokentool-op-myapp"]
                    // The attacker's own flow, its URL and CSRF token, posted from the victim's browser
                    // (as a cross-site auto-submitting form would, but with Fetch Metadata and Origin left out).
                    let (url, csrf, _) = try await OIDCLoginPageTests.openLogin(attacker)
                    let forged = try await victim.post(url, [("csrf", csrf), ("email", "attacker@example.com"), ("password", OIDCFixture.password)])
                    #expect(forged.status == 400 && forged.header("Location") == nil, "\(forged.status) \(forged.header("Location") ?? "")")
                    #expect(victim.setCookies.count == 1, "only the victim's own sign-in set a cookie: \(victim.setCookies)")
                    try await Self.expectUntouched(s, victim, cookie: victimCookie, user: victimID)
                    #expect(try await victim.get(url).status == 400, "another browser opening the flow's page")
                    let consent = url.replacingOccurrences(of: "/oauth/login?", with: "/oauth/consent?")
                    #expect(try await victim.post(consent, [("csrf", csrf), ("decision", "allow")]).status == 400)

                    // Its own browser without Fetch Metadata: Origin: null (Referrer-Policy no-referrer) is accepted.
                    let fromNull = try await attacker.post(
                        url, [("csrf", csrf), ("email", "attacker@example.com"), ("password", OIDCFixture.password)], headers: [("Origin", "null")])
                    #expect(fromNull.status == 303 && fromNull.header("Location")?.contains("code=") == true, "\(fromNull.status) \(fromNull.body.prefix(200))")
                    // Cross-site or another real origin, even from the flow's own browser: refused.
                    for headers in [[("Sec-Fetch-Site", "cross-site")], [("Origin", "https://evil.example")], [("Sec-Fetch-Site", "cross-site"), ("Origin", "null")]] {
                        attacker.cookies["tokentool-op-myapp"] = nil  // signed out again: the login page, not a code at once
                        let (again, token, _) = try await OIDCLoginPageTests.openLogin(attacker)
                        let refused = try await attacker.post(
                            again, [("csrf", token), ("email", "attacker@example.com"), ("password", OIDCFixture.password)], headers: headers)
                        #expect(refused.status == 403 && refused.header("Location") == nil, "\(headers): \(refused.status)")
                    }
                }
            }
        }
    }

    @Test("Google from the login page: the attacker's callback URL opened by the victim's browser is the 400 page, its OP session untouched", arguments: StoreKind.available)
    func hostedWebSignIn(kind: StoreKind) async throws {
        try await WebSignInGoogleTests.withWeb(kind, apps: H.apps, clients: H.clients, files: OIDCFixture.files) { s, _ in
            let victimUser = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/register",
                body: AccountRoutesTests.json(["email": "victim@example.com", "password": OIDCFixture.password]))
            #expect(victimUser.status == 201)
            try await OIDCBrowser.with(s) { attacker in
                try await OIDCBrowser.with(s) { victim in
                    try await OIDCConsentTests.signIn(victim, "victim@example.com")
                    let victimCookie = victim.cookies["tokentool-op-myapp"]
                    let victimID = try await s.server.store.opSession(token: try #require(victimCookie), app: "myapp", at: Int64(Date().timeIntervalSince1970))?.userID
                    let (_, html) = try await H.loginPage(attacker)
                    let callback = try await H.throughGoogle(attacker, html)
                    let forged = try await victim.get(callback)
                    #expect(forged.status == 400 && forged.header("Location") == nil, "\(forged.status) \(forged.header("Location") ?? "")")
                    #expect(forged.body.contains("started in another browser"))
                    try await Self.expectUntouched(s, victim, cookie: victimCookie, user: victimID)
                    #expect(victim.setCookies.count == 1, "\(victim.setCookies)")
                }
            }
            // The flow's own browser gets through (the same route, with its binding).
            try await OIDCBrowser.with(s) { own in
                let (_, html) = try await H.loginPage(own)
                let done = try await own.get(try await H.throughGoogle(own, html))
                #expect(done.status == 303 && done.header("Location")?.contains("code=") == true, "\(done.status) \(done.body.prefix(200))")
            }
        }
    }

    @Test("realm-web's redirect flow: the attacker's callback in another browser never reaches the app with #_baas_ua", arguments: StoreKind.available)
    func appServicesRedirect(kind: StoreKind) async throws {
        try await WebSignInGoogleTests.withWeb(kind) { s, _ in
            // The attacker's browser runs the start and Google's page; the victim's opens the callback.
            let start = try await B.get(B.start(s, provider: "oauth2-google", redirect: WebSignInGoogleTests.redirect, state: "attackerstat"), browser: "attacker")
            #expect(start.status == 302)
            let page = try await B.get(try #require(start.header("Location")), browser: "attacker")
            let callback = try #require(page.header("Location"))
            let forged = try await B.get(callback, browser: "victim")
            #expect(forged.status == 400, "\(forged.status) \(forged.header("Location") ?? "")")
            #expect(forged.header("Location") == nil && !forged.body.contains("_baas_ua"))
            // The same for Apple's form_post: posted by the victim's browser with its own binding cookie, or none.
            let appleStart = try await B.get(
                B.start(s, provider: "oauth2-apple", redirect: WebSignInGoogleTests.redirect, state: "attackerappl"), browser: "attacker")
            let form = try B.form(try await B.get(try #require(appleStart.header("Location")), browser: "attacker").body)
            _ = try await B.get(B.start(s, provider: "oauth2-apple", redirect: WebSignInGoogleTests.redirect, state: "victimsappl"), browser: "victim")
            let victimBinding = try #require(B.cookie("tokentool-wsi", for: form.action, browser: "victim"))
            for cookies in [["tokentool-wsi": victimBinding], [:]] {
                let posted = try await B.postForm(form.action, form.fields, cookies: cookies)
                #expect(posted.status == 400 && posted.header("Location") == nil, "\(cookies.keys): \(posted.status) \(posted.header("Location") ?? "")")
            }
        }
    }

    @Test("the binding cookie: HttpOnly, Path=/, Lax for the hosted pages; SameSite=None; Secure for web sign-in over https; __Host- over https")
    func cookieAttributes() throws {
        let hosted = FlowBinding.setCookie("v", kind: .hosted, secure: true)
        #expect(hosted.hasPrefix("__Host-tokentool-flow=v;") && hosted.contains("SameSite=Lax") && hosted.contains("Secure"))
        let web = FlowBinding.setCookie("v", kind: .webSignIn, secure: true)
        #expect(web.hasPrefix("__Host-tokentool-wsi=v;") && web.contains("SameSite=None") && web.contains("; Secure") && web.contains("HttpOnly"))
        let plain = FlowBinding.setCookie("v", kind: .webSignIn, secure: false)
        #expect(plain.hasPrefix("tokentool-wsi=v;") && plain.contains("SameSite=Lax") && !plain.contains("Secure") && plain.contains("Path=/"))
        // A digest never matches a cookie of another value, nor a missing cookie; a legacy flow (no digest) passes.
        let value = try RandomID.base64URL(bytes: 32)
        let other = try RandomID.base64URL(bytes: 32)
        #expect(FlowBinding.holds(FlowBinding.digest(value), in: ["tokentool-flow=\(value)"], kind: .hosted, secure: false))
        #expect(!FlowBinding.holds(FlowBinding.digest(value), in: ["tokentool-flow=\(other)"], kind: .hosted, secure: false))
        #expect(!FlowBinding.holds(FlowBinding.digest(value), in: [], kind: .hosted, secure: false))
        #expect(!FlowBinding.holds(FlowBinding.digest(value), in: ["tokentool-flow=\(value)"], kind: .hosted, secure: true), "over https only __Host-")
        #expect(FlowBinding.holds(nil, in: [], kind: .hosted, secure: false))
    }
}
