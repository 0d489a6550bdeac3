import Foundation
import JOSE
import Testing
@testable import AuthServer
@testable import Sessions

/// The OpenID Provider's other endpoints over HTTP on both stores: the refresh grant for OpenID
/// Connect clients, userinfo, discovery, client authentication at introspection and revocation,
/// and RP-initiated logout.
@Suite("OIDC endpoints", .serialized)
struct OIDCEndpointTests {
    static func refresh(_ s: LiveServer, _ token: String, client: String = "portal") async throws -> LiveServer.Answer {
        let fields = [("grant_type", "refresh_token"), ("refresh_token", token)]
        switch client {
        case "portal": return try await s.form("/oauth/token", fields, headers: [OIDCTokenFixture.basic()])
        case "poster": return try await s.form("/oauth/token", fields + [("client_id", "poster"), ("client_secret", OIDCTokenFixture.secret)])
        default: return try await s.form("/oauth/token", fields + [("client_id", client)])
        }
    }

    @Test(
        "the refresh grant of an OIDC client: its authentication, a new ID token (same sub, auth_time, sid; no nonce); public clients rotate",
        arguments: StoreKind.available)
    func refreshGrant(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let first = try await OIDCTokenFixture.exchange(s, code)
            let refreshToken = try #require(first["refresh_token"])
            let firstClaims = try await OIDCTokenFixture.verifyIDToken(s, try #require(first["id_token"]))
            // Without the client's authentication, or by another client or an app's client_id: refused, nothing spent.
            let bare = try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken)])
            #expect(bare.status == 401 && bare["error"] == "invalid_client")
            OIDCTokenTests.expectError(try await Self.refresh(s, refreshToken, client: "poster"), 400, "invalid_grant")
            OIDCTokenTests.expectError(try await Self.refresh(s, refreshToken, client: "myapp"), 400, "invalid_grant")
            OIDCTokenTests.expectError(
                try await s.form(
                    "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refreshToken)],
                    headers: [OIDCTokenFixture.basic("resource-api")]),
                400, "invalid_grant")

            let a = try await Self.refresh(s, refreshToken)
            #expect(a.status == 200, "\(a.body)")
            #expect(a.header("Cache-Control") == "no-store" && a["scope"] == "openid profile email")
            #expect(a["refresh_token"] == refreshToken)  // a confidential client of a non-rotating app keeps its token
            let c = try await OIDCTokenFixture.verifyIDToken(s, try #require(a["id_token"]))
            #expect(c["sub"] == firstClaims["sub"] && c["auth_time"] == firstClaims["auth_time"] && c["sid"] == firstClaims["sid"])
            #expect(c["nonce"] == nil && c["at_hash"]?.stringValue == OIDCClaims.atHash(accessToken: a["access_token"]!, algorithm: .rs256))
            let claims = try await s.server.service.verifyAccessToken(a["access_token"]!, audiences: ["myapp"])
            #expect(claims.clientID == "portal" && claims.scope == "openid profile email")

            // A public client's refresh token always rotates; the spent one is reuse.
            let spa = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, client: "spa", user: user), client: "spa")
            let spaToken = try #require(spa["refresh_token"])
            let next = try await Self.refresh(s, spaToken, client: "spa")
            #expect(next.status == 200 && next["refresh_token"] != nil && next["refresh_token"] != spaToken, "\(next.body)")
            #expect(next["id_token"] != nil)

            // The Realm clients' refresh is unchanged: an app's public client_id refreshes its app's tokens.
            let realm = try await OAuthFixture.signIn(s)
            let r = try await s.form(
                "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", realm.tokens.refreshToken), ("client_id", "myapp")])
            #expect(r.status == 200 && r["id_token"] == nil && r["scope"] == nil)
        }
    }

    @Test(
        "userinfo: Bearer header (GET, POST) or access_token form member; the live check; 401 invalid_token; 403 insufficient_scope",
        arguments: StoreKind.available)
    func userinfo(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let a = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: user))
            let access = try #require(a["access_token"])
            let sub = try await OIDCTokenFixture.verifyIDToken(s, try #require(a["id_token"]))["sub"]
            for answer in [
                try await s.call(.GET, "/oauth/userinfo", bearer: access),
                try await s.form("/oauth/userinfo", [], headers: [("Authorization", "Bearer " + access)]),
                try await s.form("/oauth/userinfo", [("access_token", access)]),
            ] {
                #expect(answer.status == 200, "\(answer.body)")
                #expect(answer.object["sub"] == sub && answer["email"] == "ann@example.com" && answer.object["email_verified"] == true)
                #expect(answer["name"] == "Ann Lee" && answer.header("Cache-Control") == "no-store")
            }
            // Only the scopes' claims.
            let emailOnly = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: user, scope: "openid email"))
            let e = try await s.call(.GET, "/oauth/userinfo", bearer: emailOnly["access_token"])
            #expect(e.status == 200 && e["email"] == "ann@example.com" && e["name"] == nil)
            // Sent twice: 400.
            let twice = try await s.form("/oauth/userinfo", [("access_token", access)], headers: [("Authorization", "Bearer " + access)])
            #expect(twice.status == 400 && twice["error"] == "invalid_request")
            // No token, a bad one: 401 invalid_token.
            for answer in [try await s.call(.GET, "/oauth/userinfo"), try await s.call(.GET, "/oauth/userinfo", bearer: "not.a.token")] {
                #expect(answer.status == 401 && answer["error"] == "invalid_token", "\(answer.body)")
                #expect(answer.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
            let bad = try await s.call(.GET, "/oauth/userinfo", bearer: "not.a.token")
            #expect(bad.header("WWW-Authenticate")?.contains("error=\"invalid_token\"") == true)
            // Without openid: 403 insufficient_scope. An App Services access token has no scope at all.
            let plain = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: user, scope: "email"))
            let p = try await s.call(.GET, "/oauth/userinfo", bearer: plain["access_token"])
            #expect(p.status == 403 && p["error"] == "insufficient_scope")
            let realm = try await OAuthFixture.signIn(s)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: realm.tokens.accessToken).status == 403)
            // The live check: a disabled user's token, then an ended session's, are refused.
            let sessions = try #require(s.server.apps["myapp"]).sessions
            try await sessions.setUserDisabled(id: user, true)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 401)
            try await sessions.setUserDisabled(id: user, false)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 200)
            let revoked = try await s.form("/oauth/revoke", [("token", access)], headers: [OIDCTokenFixture.basic()])
            #expect(revoked.status == 200, "\(revoked.body)")
            let ended = try await s.call(.GET, "/oauth/userinfo", bearer: access)
            #expect(ended.status == 401 && ended["error"] == "invalid_token")
            // A deleted user's token too.
            let other = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: user))
            try await sessions.deleteUser(id: user)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: other["access_token"]).status == 401)
        }
    }

    @Test(
        "discovery: the OpenID Provider's document, issuer = public_url, Cache-Control public; every endpoint it names answers",
        arguments: StoreKind.available)
    func discovery(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let a = try await s.call(.GET, "/.well-known/openid-configuration")
            #expect(a.status == 200 && a.header("Cache-Control") == "public, max-age=3600")
            #expect(a.object == OIDCDiscovery.document(s.server.config))
            #expect(a["issuer"] == "http://auth.test" && a["userinfo_endpoint"] == "http://auth.test/oauth/userinfo")
            #expect(a.object["id_token_signing_alg_values_supported"] == ["RS256", "ES256"])
            #expect(a.object["grant_types_supported"] == ["authorization_code", "refresh_token"])
            let jwks = try await s.call(.GET, "/.well-known/jwks.json")
            let algs = Set((jwks.object["keys"]?.arrayValue ?? []).compactMap { $0.objectValue?["alg"]?.stringValue })
            #expect(algs == ["RS256", "ES256"])
            for path in ["/oauth/userinfo", "/oauth/logout", "/.well-known/jwks.json"] {
                #expect(try await s.call(.GET, path).status != 404, "\(path)")
            }
        }
        // public_url ending in / with OpenID Connect clients: a config error that says so; without them, as before.
        let spa = #""spa": {"app": "myapp", "redirect_uris": ["http://127.0.0.1/cb"]}"#
        for (publicURL, clients, refused) in [
            ("https://a.example/", spa, true), ("https://a.example", spa, false), ("https://a.example/", "", false),
        ] {
            let text = #"{"public_url":"\#(publicURL)","apps":{"myapp":{}},"clients":{\#(clients)}}"#
            do {
                _ = try ServerConfig.parse(text, directory: NSTemporaryDirectory())
                #expect(!refused, "\(publicURL) \(clients)")
            } catch let e as TokenError {
                #expect(refused && e.code == .invalidConfiguration && e.message.contains("public_url: must not end in /"), "\(e.message)")
            }
        }
    }

    @Test(
        "OIDC confidential clients authenticate at introspection and revocation; a public one may revoke only its own tokens",
        arguments: StoreKind.available)
    func introspectAndRevoke(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let a = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: user))
            let access = try #require(a["access_token"])
            let basic = try await s.form("/oauth/introspect", [("token", access)], headers: [OIDCTokenFixture.basic()])
            #expect(basic.status == 200 && basic.object["active"] == true && basic["client_id"] == "portal")
            // RFC 7662 §2.2 `scope`: what the user allowed the client (a resource server decides by it).
            #expect(basic["scope"] == "openid profile email", "\(basic.body)")
            let refreshAnswer = try await s.form("/oauth/introspect", [("token", a["refresh_token"]!)], headers: [OIDCTokenFixture.basic()])
            #expect(refreshAnswer.object["active"] == true && refreshAnswer["scope"] == "openid profile email", "\(refreshAnswer.body)")
            // Another relying party, authenticated (client_secret_post), learns nothing of portal's token (RFC 7662 §4).
            let post = try await s.form(
                "/oauth/introspect", [("token", access), ("client_id", "poster"), ("client_secret", OIDCTokenFixture.secret)])
            #expect(post.status == 200 && post.body == #"{"active":false}"#, "\(post.body)")
            // A resource server (no redirect URIs) introspects every client's tokens, scope included.
            let resource = try await s.form("/oauth/introspect", [("token", access)], headers: [OIDCTokenFixture.basic("resource-api")])
            #expect(resource.object["active"] == true && resource["client_id"] == "portal" && resource["scope"] == "openid profile email")
            let wrong = try await s.form("/oauth/introspect", [("token", access)], headers: [OIDCTokenFixture.basic("portal", "nope")])
            #expect(wrong.status == 401 && wrong["error"] == "invalid_client")
            let spa = try await s.form("/oauth/introspect", [("token", access), ("client_id", "spa")])
            #expect(spa.status == 401 && spa["error"] == "invalid_client")
            // The public client may not end portal's session; portal may.
            let foreign = try await s.form("/oauth/revoke", [("token", access), ("client_id", "spa")])
            #expect(foreign.status == 400 && foreign["error"] == "unauthorized_client")
            #expect(try await s.form("/oauth/revoke", [("token", a["refresh_token"]!)], headers: [OIDCTokenFixture.basic()]).status == 200)
            let after = try await s.form("/oauth/introspect", [("token", access)], headers: [OIDCTokenFixture.basic()])
            #expect(after.object["active"] == false)
        }
    }

    @Test(
        "logout: ends the OP session and its sessions, then 302 to the registered post_logout_redirect_uri with state; an unregistered one ends nothing",
        arguments: StoreKind.available)
    func logout(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let a = try await OIDCTokenFixture.exchange(s, code)
            let idToken = try #require(a["id_token"]), access = try #require(a["access_token"])
            let cookie = ("Cookie", "tokentool-op-myapp=\(code.opToken)")
            // Not registered: the error page, nothing ended.
            let refused = try await s.call(
                .GET, "/oauth/logout?client_id=portal&post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F", headers: [cookie])
            #expect(refused.status == 400 && refused.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(try await s.server.store.opSession(token: code.opToken, app: "myapp", at: OIDCTokenFixture.now) != nil)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 200)
            let forged = try await s.call(.GET, "/oauth/logout?id_token_hint=a.b.c", headers: [cookie])
            #expect(forged.status == 400)

            let done = try await OIDCTokenFixture.getNoRedirect(
                s, "/oauth/logout?id_token_hint=\(idToken)&post_logout_redirect_uri=https%3A%2F%2Fportal.example.com%2Fbye&state=s%201",
                headers: [cookie])
            #expect(done.status == 302 && done.header("Location") == "https://portal.example.com/bye?state=s%201", "\(done.status) \(done.body)")
            #expect(done.header("Set-Cookie")?.hasPrefix("tokentool-op-myapp=;") == true)
            #expect(try await s.server.store.opSession(token: code.opToken, app: "myapp", at: OIDCTokenFixture.now) == nil)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 401)
            OIDCTokenTests.expectError(try await OIDCEndpointTests.refresh(s, a["refresh_token"]!), 400, "invalid_grant")

            // Without a redirect: the signed-out page (POST form); a session of another OP session goes on.
            let other = try await OIDCTokenFixture.code(s, user: user)
            let b = try await OIDCTokenFixture.exchange(s, other)
            let third = try await OIDCTokenFixture.code(s, user: user)
            let c = try await OIDCTokenFixture.exchange(s, third)
            let otherCookie = ("Cookie", "tokentool-op-myapp=\(other.opToken)")
            let confirm = try await s.form("/oauth/logout", [("client_id", "portal")], headers: [otherCookie])
            let csrf = try #require(OIDCFixture.csrf(confirm.body))
            let page = try await s.form(
                "/oauth/logout", [("client_id", "portal"), ("csrf", csrf)], headers: [otherCookie, ("Sec-Fetch-Site", "same-origin")])
            #expect(page.status == 200 && page.body.contains("signed out"))
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: b["access_token"]!).status == 401)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: c["access_token"]!).status == 200)
        }
    }
}
