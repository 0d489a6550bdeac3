@testable import AuthServer
import Foundation
import JOSE
import ProviderStandIn
import Testing

/// The hosted login page's Apple and Facebook buttons end to end over HTTP on 127.0.0.1, the
/// stand-in as both providers: Apple's answer is its `form_post` page, posted to the callback by a
/// client that sends no cookie (a browser's cross-site post carries none of the server's
/// `SameSite=Lax` cookies); Facebook's dialog returns a code the server exchanges at Graph. Each
/// ends with the relying party's code, whose ID token names the native login's user with `amr`
/// `["fed"]` and the relying party's nonce.
@Suite("Web sign-in: Apple and Facebook from the hosted login page", .serialized)
struct WebSignInHostedAppleFacebookTests {
    typealias B = WebSignInBrowser
    typealias H = WebSignInHostedLoginTests

    /// `myapp`: email/password, Apple with its Services ID (`web_client_id`) and Facebook for the web.
    static func apps(_ st: ProviderStandIn.Settings) -> String {
        """
        { "myapp": { "providers": {
            "local-userpass": { "auto_confirm": true },
            "oauth2-apple": { "client_ids": ["\(st.appleClientID)"], "team_id": "\(st.appleTeamID)", "key_id": "\(st.appleKeyID)",
                              "private_key_file": "apple.p8", "web_client_id": "\(st.appleWebClientID)" },
            "oauth2-facebook": { "app_id": "\(st.facebookAppID)", "app_secret_file": "fb.secret" } } } }
        """
    }

    static let clients = #"""
        "clients": { "portal": { "app": "myapp", "name": "Portal", "secret_file": "portal.secret", "first_party": true,
                                 "redirect_uris": ["https://portal.example.com/cb"] } },
        """#

    static func with(_ kind: StoreKind, _ body: (LiveServer, ProviderStandIn, OIDCBrowser) async throws -> Void) async throws {
        try await WebSignInGoogleTests.withWeb(kind, apps: apps, clients: clients, files: OIDCFixture.files) { s, standIn in
            try await OIDCBrowser.with(s) { try await body(s, standIn, $0) }
        }
    }

    @Test(
        "Apple: the button, Apple's form_post to the callback without a cookie, then the client's code for the native Apple login's user",
        arguments: StoreKind.available)
    func apple(kind: StoreKind) async throws {
        try await Self.with(kind) { s, standIn, b in
            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-apple/login", body: #"{"id_token":"\#(try standIn.idToken("apple"))"}"#)
            let user = try #require(native["user_id"])
            let (_, html) = try await H.loginPage(b)
            let start = try await b.get(try #require(H.button(html, "Continue with Apple")))
            #expect(start.status == 302 && start.header("Cache-Control") == "no-store", "\(start.body.prefix(300))")
            let page = try await B.get(try #require(start.header("Location")))
            #expect(page.status == 200, "\(page.body.prefix(300))")
            let form = try B.form(page.body)
            #expect(form.action == s.baseURL + "/oauth/callback/apple")
            let asked = try #require(standIn.web.authorizationRequests.last).query
            #expect(asked["client_id"] == standIn.settings.appleWebClientID && asked["response_mode"] == "form_post")

            // Cross-site: the browser sends the web sign-in's binding cookie (SameSite=None over https), not the OP session's.
            let binding = try #require(b.cookies["tokentool-wsi"])
            let claims = try await H.relyingParty(s, try await B.postForm(form.action, form.fields, cookies: ["tokentool-wsi": binding]))
            #expect(claims.subject == user && claims["amr"] == ["fed"] && claims["nonce"] == "rp-nonce")
            // Posted again (a replayed form): the state is spent, the 400 page, no code.
            let replay = try await B.postForm(form.action, form.fields, cookies: ["tokentool-wsi": binding])
            #expect(replay.status == 400 && replay.header("Location") == nil)
        }
    }

    @Test(
        "Facebook: the button, the dialog's code exchanged at Graph, then the client's code for the native Facebook login's user",
        arguments: StoreKind.available)
    func facebook(kind: StoreKind) async throws {
        try await Self.with(kind) { s, standIn, b in
            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-facebook/login", body: #"{"accessToken":"standin-facebook-user-token"}"#)
            let user = try #require(native["user_id"])
            let (_, html) = try await H.loginPage(b)
            let start = try await b.get(try #require(H.button(html, "Continue with Facebook")))
            #expect(start.status == 302, "\(start.body.prefix(300))")
            let dialog = try await B.get(try #require(start.header("Location")))
            #expect(dialog.status == 302, "\(dialog.body.prefix(300))")
            let callback = try #require(dialog.header("Location"))
            #expect(callback.hasPrefix(s.baseURL + "/oauth/callback/facebook?"))

            let claims = try await H.relyingParty(s, try await b.get(callback))
            #expect(claims.subject == user && claims["amr"] == ["fed"] && claims["nonce"] == "rp-nonce")
            let exchange = try #require(standIn.requests.last { $0.path == "/v19.0/oauth/access_token" }).query
            #expect(exchange["client_id"] == standIn.settings.facebookAppID && exchange["redirect_uri"] == s.baseURL + "/oauth/callback/facebook")
            // Signed in: the next authorization request answers at once.
            let again = try await b.get("/oauth/authorize" + OIDCFixture.query([("response_type", "code"), ("client_id", "portal")]))
            #expect(again.status == 302 && again.header("Location")?.hasPrefix("https://portal.example.com/cb?code=") == true)
        }
    }
}
