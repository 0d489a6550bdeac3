@testable import AuthServer
import Foundation
import JOSE
import ProviderStandIn
import Testing

/// Linking through the redirect flow as realm-web's `linkCredentials` with a redirect credential
/// does it (docs/oidc.md, "Linking through realm-web's flow"), over HTTP on 127.0.0.1 against the stand-in providers:
/// the start with the user's access token answers 200 with `X-BAAS-Location` naming the hosted
/// confirmation page; the page names the account; only its own browser's post goes on; the
/// callback joins the identity and ends at `#_baas_link=ok`. Every refused start is JSON.
@Suite("Web sign-in: linking through the redirect flow", .serialized)
struct WebSignInLinkTests {
    typealias B = WebSignInBrowser
    typealias G = WebSignInGoogleTests
    static let state = "linkstate123"

    /// realm-web's link start URL.
    static func linkStart(_ s: LiveServer, app: String = "myapp", provider: String = "oauth2-google", redirect: String = G.redirect) -> String {
        B.start(s, app: app, provider: provider, redirect: redirect, state: state) + "&link=true&providerRedirectHeader=true"
    }

    /// A user signed in natively with Apple's id_token (an identity with an email): access, refresh, user id.
    static func appleUser(_ s: LiveServer, _ standIn: ProviderStandIn) async throws -> (access: String, refresh: String, userID: String) {
        let login = try await s.call(
            .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-apple/login", body: #"{"id_token":"\#(try standIn.idToken("apple"))"}"#)
        #expect(login.status == 200, "\(login.body)")
        return (try #require(login["access_token"]), try #require(login["refresh_token"]), try #require(login["user_id"]))
    }

    /// The start as realm-web's fetch sends it: the confirmation page's URL.
    static func pageURL(_ s: LiveServer, access: String, provider: String = "oauth2-google") async throws -> String {
        let start = try await B.send(.GET, linkStart(s, provider: provider), browser: nil, headers: [("Authorization", "Bearer " + access)])
        #expect(start.status == 200 && start.header("Location") == nil, "\(start.status) \(start.body.prefix(300))")
        #expect(start.header("Cache-Control") == "no-store")
        let location = try #require(start.header("X-BAAS-Location"))
        #expect(location.hasPrefix(s.baseURL + "/oauth/link?flow="), "\(location)")
        return location
    }

    /// The page's CSRF field.
    static func csrf(_ html: String) throws -> String {
        String(try #require(html.firstMatch(of: /name="csrf" value="([^"]*)"/)?.1))
    }

    /// Page, button (from the page's own origin, as Chromium posts it), provider: the callback URL.
    static func toCallback(_ s: LiveServer, pageURL: String) async throws -> String {
        let page = try await B.get(pageURL)
        #expect(page.status == 200, "\(page.body.prefix(300))")
        let pressed = try await B.postPage(
            pageURL, [("csrf", try csrf(page.body))], headers: [("Origin", s.baseURL), ("Sec-Fetch-Site", "same-origin")])
        #expect(pressed.status == 302, "\(pressed.status) \(pressed.body.prefix(300))")
        let upstream = try await B.get(try #require(pressed.header("Location")))
        #expect(upstream.status == 302, "\(upstream.body.prefix(300))")
        return try #require(upstream.header("Location"))
    }

    static func providers(_ s: LiveServer, access: String) async throws -> Set<String> {
        let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: access)
        #expect(profile.status == 200, "\(profile.body)")
        return Set((profile.object["identities"]?.arrayValue ?? []).compactMap { $0.objectValue?["provider_type"]?.stringValue })
    }

    @Test(
        "links: the page names the account, the button goes to Google, the callback joins the identity and ends at #_baas_link=ok; the refresh token still works",
        arguments: StoreKind.available)
    func links(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            let user = try await Self.appleUser(s, standIn)
            let pageURL = try await Self.pageURL(s, access: user.access)
            let page = try await B.get(pageURL)
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(page.body.contains(#"<strong id="account">standin@privaterelay.appleid.com</strong>"#), "\(page.body)")
            #expect(page.body.contains("Continue with Google") && page.body.contains(#"<strong id="app">myapp</strong>"#))
            let csp = try #require(page.header("Content-Security-Policy"))
            #expect(csp.contains("frame-ancestors 'none'") && csp.contains("form-action 'self' \(standIn.baseURL)"), "\(csp)")
            #expect(page.header("Cache-Control") == "no-store" && B.cookie("tokentool-wsi", for: pageURL) != nil)
            #expect(standIn.web.authorizationRequests.isEmpty, "nothing goes upstream before the button")

            let callback = try await Self.toCallback(s, pageURL: pageURL)
            #expect(callback.hasPrefix(s.baseURL + "/oauth/callback/google?"))
            let done = try await B.get(callback)
            let f = try B.fragment(done, redirect: G.redirect)
            #expect(f["_baas_link"] == "ok" && f["_baas_state"] == Self.state && f["_baas_client_app_id"] == "myapp" && f["_baas_error"] == nil)
            let ua = try #require(f["_baas_ua"]).split(separator: "$", omittingEmptySubsequences: false).map(String.init)
            try #require(ua.count == 4, "\(ua)")
            #expect(ua[1].isEmpty && ua[2] == user.userID && ua[3].utf8.count == 24)
            #expect(try await Self.providers(s, access: ua[0]) == ["oauth2-apple", "oauth2-google"])
            // The session goes on: its refresh token is unchanged; the native Google login finds the same user.
            #expect(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: user.refresh).status == 201)
            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login", body: #"{"id_token":"\#(try standIn.idToken("google"))"}"#)
            #expect(native["user_id"] == user.userID)
            // The page is single-use.
            let again = try await B.get(pageURL)
            #expect(again.status == 400 && again.body.contains("expired or was already used"))
        }
    }

    @Test(
        "every refused start is JSON and stores nothing: 401 without, with a bad or another app's token; 400 without providerRedirectHeader, redirect or state; 404",
        arguments: StoreKind.available)
    func refusedStarts(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            let user = try await Self.appleUser(s, standIn)
            func start(_ url: String, _ token: String?) async throws -> LiveServer.Answer {
                try await B.send(.GET, url, browser: nil, headers: token.map { [("Authorization", "Bearer " + $0)] } ?? [])
            }
            let base = Self.linkStart(s)
            let cases: [(String, String?, Int, String)] = [
                (base, nil, 401, "InvalidSession"), (base, "not-a-token", 401, "InvalidSession"),
                (Self.linkStart(s, app: "nosecret"), user.access, 401, "InvalidSession"),
                (base.replacingOccurrences(of: "&providerRedirectHeader=true", with: ""), user.access, 400, "InvalidParameter"),
                (Self.linkStart(s, redirect: "https://evil.example/cb"), user.access, 400, "InvalidParameter"),
                (base.replacingOccurrences(of: "&state=\(Self.state)", with: ""), user.access, 400, "InvalidParameter"),
                (Self.linkStart(s, provider: "oauth2-twitter"), user.access, 404, "AuthProviderNotFound"),
            ]
            for (url, token, status, code) in cases {
                let a = try await start(url, token)
                #expect(a.status == status && a.errorCode == code, "\(url): \(a.status) \(a.body.prefix(200))")
                #expect(a.header("Content-Type")?.hasPrefix("application/json") == true && a.header("Location") == nil)
                #expect(a.header("X-BAAS-Location") == nil)
            }
            #expect(standIn.web.authorizationRequests.isEmpty)
            // A page URL nobody was given: the 400 page.
            let made = try await B.get(s.baseURL + "/oauth/link?flow=" + String(repeating: "A", count: 43) + ".myapp")
            #expect(made.status == 400 && made.body.contains("expired or was already used"))
        }
    }

    @Test(
        "only the page's own browser goes on: another cookie jar, a wrong CSRF token, a cross-site post are refused; Origin: null is accepted",
        arguments: StoreKind.available)
    func boundToTheBrowser(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            let user = try await Self.appleUser(s, standIn)
            let pageURL = try await Self.pageURL(s, access: user.access)
            let page = try await B.get(pageURL)
            let token = try Self.csrf(page.body)
            // The victim's browser (its own jar) posting the attacker's page's form.
            let victimPage = try await B.get(pageURL, browser: "victim")
            #expect(victimPage.status == 200)
            for (fields, browser, headers) in [
                ([("csrf", token)], "victim", [("Origin", s.baseURL)]),
                ([("csrf", token)], "fresh", [(String, String)]()),
                ([("csrf", String(token.reversed()))], "default", [("Origin", s.baseURL)]),
                ([], "default", [("Origin", s.baseURL)]),
                ([("csrf", token)], "default", [("Sec-Fetch-Site", "cross-site")]),
                ([("csrf", token)], "default", [("Origin", "https://evil.example")]),
            ] as [([(String, String)], String, [(String, String)])] {
                let refused = try await B.postPage(pageURL, fields, browser: browser, headers: headers)
                #expect(refused.status == 400 && refused.header("Location") == nil, "\(browser) \(headers): \(refused.status)")
                #expect(refused.body.contains("another browser or another site") && !refused.body.contains("standin@"))
            }
            #expect(standIn.web.authorizationRequests.isEmpty)
            // An old browser without Fetch Metadata sends Origin: null (the page's no-referrer): accepted.
            let pressed = try await B.postPage(pageURL, [("csrf", token)], headers: [("Origin", "null")])
            #expect(pressed.status == 302 && pressed.header("Location")?.hasPrefix(standIn.baseURL) == true, "\(pressed.status)")
            // The provider's answer opened in the victim's browser: the 400 page, nothing linked.
            let upstream = try await B.get(try #require(pressed.header("Location")))
            let callback = try #require(upstream.header("Location"))
            let foreign = try await B.get(callback, browser: "victim")
            #expect(foreign.status == 400 && foreign.header("Location") == nil)
            #expect(try await Self.providers(s, access: user.access) == ["oauth2-apple"])
        }
    }

    @Test(
        "another user's identity is #_baas_error (AccountNameInUse); a session ended before the callback or the page links nothing",
        arguments: StoreKind.available)
    func refusedLinks(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            let owner = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login", body: #"{"id_token":"\#(try standIn.idToken("google"))"}"#)
            let user = try await Self.appleUser(s, standIn)
            #expect(owner["user_id"] != nil && owner["user_id"] != user.userID)
            let inUse = try await B.get(try await Self.toCallback(s, pageURL: try await Self.pageURL(s, access: user.access)))
            let message = try B.refusal(inUse, redirect: G.redirect, state: Self.state)
            #expect(message.contains("AccountNameInUse"), "\(message)")
            #expect(try await Self.providers(s, access: user.access) == ["oauth2-apple"])

            // Signed out while the provider's page was open: #_baas_error, and the identity joins nobody.
            standIn.web.overrideClaims(["sub": "google-user-of-nobody-yet"])
            let callback = try await Self.toCallback(s, pageURL: try await Self.pageURL(s, access: user.access))
            #expect(try await s.call(.DELETE, LiveServer.base + "/auth/session", bearer: user.refresh).status == 204)
            let ended = try B.refusal(try await B.get(callback), redirect: G.redirect, state: Self.state)
            #expect(ended.contains("has ended"), "\(ended)")
            let fresh = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login",
                body: #"{"id_token":"\#(try standIn.idToken("google", ["sub": "google-user-of-nobody-yet"]))"}"#)
            #expect(fresh.status == 200 && fresh["user_id"] != user.userID)

            // Signed out before the page: the page is the 400 page.
            let again = try await Self.appleUser(s, standIn)
            let pageURL = try await Self.pageURL(s, access: again.access)
            #expect(try await s.call(.DELETE, LiveServer.base + "/auth/session", bearer: again.refresh).status == 204)
            let page = try await B.get(pageURL)
            #expect(page.status == 400 && page.body.contains("expired or was already used"))
        }
    }

    @Test("Apple's form_post links too; an older realm-web's providerRedirectHeader sign-in gets X-BAAS-Location to the plain start", arguments: StoreKind.available)
    func appleAndWindowStart(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            let google = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login", body: #"{"id_token":"\#(try standIn.idToken("google"))"}"#)
            let access = try #require(google["access_token"]), userID = try #require(google["user_id"])
            let pageURL = try await Self.pageURL(s, access: access, provider: "oauth2-apple")
            let page = try await B.get(pageURL)
            #expect(page.body.contains("Continue with Apple"))
            let pressed = try await B.postPage(pageURL, [("csrf", try Self.csrf(page.body))], headers: [("Sec-Fetch-Site", "same-origin")])
            #expect(pressed.status == 302, "\(pressed.status)")
            let applePage = try await B.get(try #require(pressed.header("Location")))
            let form = try B.form(applePage.body)
            let posted = try await B.postForm(form.action, form.fields, cookies: WebSignInAppleFacebookTests.binding(form.action))
            let f = try B.fragment(posted, redirect: G.redirect)
            #expect(f["_baas_link"] == "ok" && f["_baas_ua"]?.split(separator: "$", omittingEmptySubsequences: false)[2] == Substring(userID), "\(f)")
            #expect(try await Self.providers(s, access: access) == ["oauth2-apple", "oauth2-google"])

            let plain = B.start(s, provider: "oauth2-google", redirect: G.redirect, state: "windowstate1")
            let older = try await B.get(plain + "&providerRedirectHeader=true")
            #expect(older.status == 200 && older.header("X-BAAS-Location") == plain, "\(older.headers)")
            #expect(try await B.get(plain).status == 302)
        }
    }
}
