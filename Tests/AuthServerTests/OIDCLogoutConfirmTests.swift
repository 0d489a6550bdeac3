import Foundation
import Testing
@testable import AuthServer
@testable import Sessions

/// `/oauth/logout` without `id_token_hint` (RP-initiated logout 1.0 §2): the server cannot tell
/// the request came from the client, so the user confirms on a page of its own first.
@Suite("OIDC logout confirmation", .serialized)
struct OIDCLogoutConfirmTests {
    @Test(
        "without id_token_hint (or with another user's) a cross-site GET ends nothing and shows a confirmation form (hosted-page headers); its same-origin POST with the CSRF token ends the session",
        arguments: StoreKind.available)
    func confirmation(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in try await OIDCBrowser.with(s) { b in try await Self.confirm(s, b) } }
    }

    static func confirm(_ s: LiveServer, _ b: OIDCBrowser) async throws {
        let user = try await OIDCTokenFixture.user(s)
        let code = try await OIDCTokenFixture.code(s, user: user)
        let a = try await OIDCTokenFixture.exchange(s, code)
        let access = try #require(a["access_token"])
        b.cookies["tokentool-op-myapp"] = code.opToken
        func stillSignedIn(sourceLocation: SourceLocation = #_sourceLocation) async throws {
            #expect(
                try await s.server.store.opSession(token: code.opToken, app: "myapp", at: OIDCTokenFixture.now) != nil,
                sourceLocation: sourceLocation)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 200, sourceLocation: sourceLocation)
        }
        // Another user's ID token (anyone can get one of their own) is no proof the browser's user asked.
        let other = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: try await OIDCTokenFixture.user(s)))
        let othersHint = try #require(other["id_token"])
        let hintedByOther = try await b.get("/oauth/logout?id_token_hint=" + othersHint, headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(hintedByOther.status == 200 && hintedByOther.header("Location") == nil && OIDCFixture.csrf(hintedByOther.body) != nil)
        try await stillSignedIn()
        let query = "?client_id=portal&post_logout_redirect_uri=https%3A%2F%2Fportal.example.com%2Fbye&state=s%201"
        let shown = try await b.get("/oauth/logout" + query, headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(shown.status == 200 && shown.header("Location") == nil && shown.header("Set-Cookie") == nil)
        #expect(shown.header("Content-Type")?.hasPrefix("text/html") == true && shown.header("Cache-Control") == "no-store")
        #expect(shown.header("Referrer-Policy") == "no-referrer")
        let csp = try #require(shown.header("Content-Security-Policy"))
        #expect(csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe-inline"))
        #expect(csp.contains("form-action 'self' https://portal.example.com"))
        #expect(shown.body.contains("<form method=\"post\"") && shown.body.contains("name=\"state\" value=\"s 1\""))
        let csrf = try #require(OIDCFixture.csrf(shown.body))
        try await stillSignedIn()

        let fields = [
            ("client_id", "portal"), ("post_logout_redirect_uri", "https://portal.example.com/bye"), ("state", "s 1"), ("csrf", csrf),
        ]
        // A post without the token, with a wrong one, or from another site: the page again, nothing ended.
        for (sent, site) in [
            (Array(fields.dropLast()), "same-origin"), (fields.dropLast() + [("csrf", "x" + csrf)], "same-origin"), (fields, "cross-site"),
        ] {
            let again = try await b.post("/oauth/logout", sent, headers: [("Sec-Fetch-Site", site)])
            #expect(again.status == 200 && again.header("Location") == nil && OIDCFixture.csrf(again.body) != nil)
            try await stillSignedIn()
        }
        let crossOrigin = try await b.post("/oauth/logout", fields, headers: [("Origin", "https://evil.example")])
        #expect(crossOrigin.status == 200 && crossOrigin.header("Location") == nil)
        try await stillSignedIn()

        // The page's own post: ended, then the registered redirect with state.
        let done = try await b.post("/oauth/logout", fields, headers: [("Sec-Fetch-Site", "same-origin")])
        #expect(done.status == 302 && done.header("Location") == "https://portal.example.com/bye?state=s%201", "\(done.status) \(done.body)")
        #expect(done.header("Set-Cookie")?.hasPrefix("tokentool-op-myapp=;") == true)
        #expect(try await s.server.store.opSession(token: code.opToken, app: "myapp", at: OIDCTokenFixture.now) == nil)
        #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 401)

        // Without a browser session there is nothing to end: no page, as before.
        let none = try await b.get("/oauth/logout" + query)
        #expect(none.status == 302 && none.header("Location") == "https://portal.example.com/bye?state=s%201")
    }
}
