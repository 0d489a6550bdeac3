@testable import AuthServer
import Foundation
import JOSE
import ProviderStandIn
import Testing

/// Web sign-in with Apple (`form_post`, the first sign-in's `user` JSON, the client-secret JWT
/// the stand-in checks, `aud` = `web_client_id`) and Facebook (the dialog, Graph's code
/// exchange, then the access-token checks), each the native login's user; on both stores.
@Suite("Web sign-in: Apple and Facebook", .serialized)
struct WebSignInAppleFacebookTests {
    typealias B = WebSignInBrowser

    /// The web sign-in binding cookie the default browser holds for `url`'s server.
    static func binding(_ url: String) -> [String: String] {
        B.cookie("tokentool-wsi", for: url).map { ["tokentool-wsi": $0] } ?? [:]
    }
    typealias G = WebSignInGoogleTests

    /// Apple's page is a form that posts to the callback: the browser posts it.
    static func appleAnswer(_ s: LiveServer, state: String = "applestate12") async throws -> LiveServer.Answer {
        let start = try await B.get(B.start(s, provider: "oauth2-apple", redirect: G.redirect, state: state))
        #expect(start.status == 302, "\(start.body.prefix(300))")
        let page = try await B.get(try #require(start.header("Location")))
        #expect(page.status == 200, "\(page.body.prefix(300))")
        let form = try B.form(page.body)
        #expect(form.action == s.baseURL + "/oauth/callback/apple")
        // Apple's page posts cross-site: the browser sends the flow's binding cookie, SameSite=None over https.
        return try await B.postForm(form.action, form.fields, cookies: Self.binding(form.action))
    }

    @Test(
        "Apple: form_post signs in; the user JSON names the new user; the native login finds the same user; the kept token is revoked for web_client_id",
        arguments: StoreKind.available)
    func apple(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            let f = try B.fragment(try await Self.appleAnswer(s), redirect: G.redirect)
            #expect(f["_baas_state"] == "applestate12" && f["_baas_client_app_id"] == "myapp", "\(f)")
            let ua = try #require(f["_baas_ua"]).split(separator: "$").map(String.init)
            try #require(ua.count == 4)
            let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: ua[0])
            let data = try #require(profile.object["data"]?.objectValue)
            #expect(data["name"] == "Stand In" && data["first_name"] == "Stand" && data["last_name"] == "In", "\(data)")
            #expect(data["email"] == "standin@privaterelay.appleid.com")

            let page = try #require(standIn.web.authorizationRequests.last).query
            #expect(page["client_id"] == standIn.settings.appleWebClientID && page["response_mode"] == "form_post")
            #expect(page["scope"] == "name email" && page["nonce"]?.utf8.count == 43 && page["code_challenge"] == nil)
            let token = try #require(standIn.requests.last { $0.path == "/auth/token" }).form
            #expect(token["client_id"] == standIn.settings.appleWebClientID && token["redirect_uri"] == s.baseURL + "/oauth/callback/apple")

            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-apple/login", body: #"{"id_token":"\#(try standIn.idToken("apple"))"}"#)
            #expect(native["user_id"] == ua[2])
            // A later sign-in has no user JSON (Apple sends it once): the same user, the name kept.
            standIn.web.setAppleUser(nil)
            let again = try B.fragment(try await Self.appleAnswer(s), redirect: G.redirect)
            #expect(try #require(again["_baas_ua"]).split(separator: "$").map(String.init)[2] == ua[2])

            #expect(try await s.call(.DELETE, LiveServer.base + "/auth/delete", bearer: ua[0]).status == 204)
            // The identity keeps its latest Apple refresh token: that one is revoked, for the web client.
            for _ in 0..<100 where standIn.revokedTokens.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            let revokes = standIn.requests.filter { $0.path == "/auth/revoke" }.map(\.form)
            #expect(revokes.count == 1 && revokes.allSatisfy { $0["client_id"] == standIn.settings.appleWebClientID }, "\(revokes)")
        }
    }

    @Test(
        "Apple: a token for the app's other client id, a cancelled sign-in, a wrong nonce, a refused client secret: #_baas_error",
        arguments: StoreKind.available)
    func appleRefusals(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            func refusal() async throws -> String { try B.refusal(try await Self.appleAnswer(s), redirect: G.redirect, state: "applestate12") }
            // Signed for client_ids[0] (the bundle id): on this path aud must be web_client_id.
            standIn.web.overrideClaims(["aud": .string(standIn.settings.appleClientID)])
            do { let said = try await refusal(); #expect(said.contains("invalid_audience"), "\(said)") }
            standIn.web.overrideClaims(["nonce": "another"])
            do { let said = try await refusal(); #expect(said.contains("invalid_nonce"), "\(said)") }
            standIn.web.overrideClaims([:])
            standIn.web.setAnswer(.deny)
            do { let said = try await refusal(); #expect(said.contains("user_cancelled_authorize"), "\(said)") }
            standIn.web.setAnswer(.approve)
            standIn.setBehavior(.body(status: 400, bytes: Array(#"{"error":"invalid_client"}"#.utf8)), for: "/auth/token")
            do { let said = try await refusal(); #expect(said.contains("invalid_client"), "\(said)") }
            standIn.setBehavior(.normal, for: "/auth/token")
            // A posted answer with a used state: the page.
            let start = try await B.get(B.start(s, provider: "oauth2-apple", redirect: G.redirect, state: "x"))
            let form = try B.form(try await B.get(try #require(start.header("Location"))).body)
            #expect(try await B.postForm(form.action, form.fields, cookies: Self.binding(form.action)).status == 302)
            let replay = try await B.postForm(form.action, form.fields, cookies: Self.binding(form.action))
            #expect(replay.status == 400 && replay.header("Location") == nil)
        }
    }

    @Test(
        "Facebook: the dialog's code is exchanged at Graph, then checked as an access token: the native login's user; refusals are #_baas_error",
        arguments: StoreKind.available)
    func facebook(kind: StoreKind) async throws {
        try await G.withWeb(kind) { s, standIn in
            let native = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-facebook/login", body: #"{"accessToken":"standin-facebook-user-token"}"#)
            #expect(native.status == 200)
            let callback = try await G.toCallback(s, provider: "oauth2-facebook", state: "fbstate")
            #expect(callback.hasPrefix(s.baseURL + "/oauth/callback/facebook?"))
            let f = try B.fragment(try await B.get(callback), redirect: G.redirect)
            let ua = try #require(f["_baas_ua"]).split(separator: "$").map(String.init)
            #expect(ua.count == 4 && ua[2] == native["user_id"] && f["_baas_state"] == "fbstate")
            let dialog = try #require(standIn.web.authorizationRequests.last)
            #expect(dialog.path == "/v19.0/dialog/oauth" && dialog.query["client_id"] == standIn.settings.facebookAppID)
            let exchange = try #require(standIn.requests.last { $0.path == "/v19.0/oauth/access_token" }).query
            #expect(
                exchange["redirect_uri"] == s.baseURL + "/oauth/callback/facebook" && exchange["client_secret"] == standIn.settings.facebookAppSecret)

            func refusal() async throws -> String {
                try B.refusal(
                    try await B.get(try await G.toCallback(s, provider: "oauth2-facebook", state: "fbstate")), redirect: G.redirect, state: "fbstate")
            }
            standIn.web.setAnswer(.deny)
            do { let said = try await refusal(); #expect(said.contains("access_denied"), "\(said)") }
            standIn.web.setAnswer(.approve)
            let graphError =
                #"{"error":{"message":"This authorization code has been used.","type":"OAuthException","code":100,"error_subcode":36009}}"#
            standIn.setBehavior(.body(status: 400, bytes: Array(graphError.utf8)), for: "/v19.0/oauth/access_token")
            do { let said = try await refusal(); #expect(said.contains("invalid_grant"), "\(said)") }
            standIn.setBehavior(.normal, for: "/v19.0/oauth/access_token")
            standIn.setBehavior(.fail(status: 503), for: "/debug_token")
            do { let said = try await refusal(); #expect(said.contains("unavailable"), "\(said)") }
            #expect(!s.logs.all.contains { $0.contains(standIn.settings.facebookAppSecret) })
        }
    }
}
