import Foundation
import JOSE
import Testing
@testable import AuthServer
@testable import Sessions
import OIDCProvider

/// `POST /oauth/token` with `grant_type=authorization_code` for OpenID Connect clients, over HTTP
/// on both stores: the answer and its ID token, client authentication by registered method, the
/// code's bindings, a second use ending what the first started, and the sweep keeping used codes.
@Suite("OIDC token endpoint", .serialized)
struct OIDCTokenTests {
    static func expectError(_ a: LiveServer.Answer, _ status: Int, _ error: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.status == status && a["error"] == error, "\(a.status) \(a.body)", sourceLocation: sourceLocation)
        #expect(a.header("Cache-Control") == "no-store", sourceLocation: sourceLocation)
    }

    @Test(
        "a code becomes tokens: every member, no-store, an RS256 ID token with every claim, an access token with client_id and scope",
        arguments: StoreKind.available)
    func exchange(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let a = try await OIDCTokenFixture.exchange(s, code)
            #expect(a.status == 200, "\(a.body)")
            #expect(a.header("Cache-Control") == "no-store")
            #expect(Set(a.object.keys) == ["access_token", "token_type", "expires_in", "refresh_token", "id_token", "scope"])
            #expect(a["token_type"] == "Bearer" && a["scope"] == "openid profile email" && a.object["expires_in"] == .int(1800))
            let access = try #require(a["access_token"]), idToken = try #require(a["id_token"])
            let header = try #require(try UnverifiedToken(idToken).header)
            #expect(header.algorithm == .rs256 && header.type == "JWT" && header.keyID?.isEmpty == false)
            let c = try await OIDCTokenFixture.verifyIDToken(s, idToken)
            #expect(c["iss"] == "http://auth.test" && c["sub"]?.stringValue == user && c["aud"] == "portal" && c["azp"] == "portal")
            let iat = try #require(c["iat"]?.numberValue)
            #expect(c["exp"]?.numberValue == iat + 1800)
            #expect(c["nonce"] == "n-1" && c["sid"]?.stringValue == code.sid && c["amr"] == ["pwd"] && c["acr"] == "urn:tokentool:acr:pwd")
            #expect(c["at_hash"]?.stringValue == OIDCClaims.atHash(accessToken: access, algorithm: .rs256))
            #expect(c["email"] == "ann@example.com" && c["email_verified"] == true && c["name"] == "Ann Lee" && c["given_name"] == "Ann")
            #expect(c["family_name"] == "Lee" && c["picture"] == "https://pics.example.com/ann.png")
            let claims = try await s.server.service.verifyAccessToken(access, audiences: ["myapp"])
            #expect(claims.clientID == "portal" && claims.scope == "openid profile email" && claims.sessionID == code.sessionID)
            #expect(claims.subject == user)
            let session = try #require(try await s.server.service.session(id: code.sessionID))
            #expect(
                session.signIn
                    == SessionSignIn(
                        opSessionID: code.sid, authTime: session.signIn?.authTime ?? 0, amr: ["pwd"], scopes: ["openid", "profile", "email"]))
            #expect(c["auth_time"]?.numberValue == Double(session.signIn?.authTime ?? -1))
            // Without openid: plain OAuth 2.0, no ID token; without profile and email, none of their claims.
            let plain = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: user, scope: "email"))
            #expect(plain.status == 200 && plain["id_token"] == nil && plain["scope"] == "email" && plain["refresh_token"] != nil)
            let bare = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, user: user, scope: "openid", nonce: nil))
            let b = try await OIDCTokenFixture.verifyIDToken(s, try #require(bare["id_token"]))
            #expect(b["nonce"] == nil && b["email"] == nil && b["name"] == nil && b["sub"]?.stringValue == user)
            // Nothing secret in the logs.
            for secret in [code.code, access, a["refresh_token"] ?? "", idToken, OIDCTokenFixture.secret] {
                #expect(!s.logs.all.contains { $0.contains(secret) })
            }
        }
    }

    @Test(
        "client authentication: Basic or client_secret_post for a secret client, a pinned method alone (ES256 ID token), public with PKCE; wrong or missing is 401 invalid_client",
        arguments: StoreKind.available)
    func clientAuthentication(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let fields = [("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", OIDCTokenFixture.redirects["portal"]!)]
            for (extra, headers) in [
                ([(String, String)](), [(String, String)]()),
                ([], [OIDCTokenFixture.basic("portal", "wrong")]),
                ([], [OIDCTokenFixture.basic("nobody", OIDCTokenFixture.secret)]),
                ([("client_id", "poster"), ("client_secret", "wrong")], []),
                ([("client_id", "portal")], []),
            ] {
                let a = try await s.form("/oauth/token", fields + extra, headers: headers)
                Self.expectError(a, 401, "invalid_client")
                #expect(a.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
                #expect(!a.body.contains(OIDCTokenFixture.secret) && !a.body.contains(code.code))
            }
            // Refused client authentication spent nothing: the code still works for its client.
            #expect(try await OIDCTokenFixture.exchange(s, code).status == 200)
            // A secret client that pins no method takes client_secret_post too (what openid-client and
            // django-allauth send by default); one that pins client_secret_post refuses Basic.
            let portalPost = try await s.form(
                "/oauth/token",
                [("grant_type", "authorization_code"), ("code", try await OIDCTokenFixture.code(s, user: user).code),
                 ("redirect_uri", OIDCTokenFixture.redirects["portal"]!), ("client_id", "portal"), ("client_secret", OIDCTokenFixture.secret)])
            #expect(portalPost.status == 200 && portalPost["id_token"] != nil, "\(portalPost.body)")
            let posterBasic = try await s.form(
                "/oauth/token", [("grant_type", "authorization_code"), ("code", "x")], headers: [OIDCTokenFixture.basic("poster")])
            Self.expectError(posterBasic, 401, "invalid_client")
            #expect(posterBasic["error_description"] == "this client authenticates with client_secret_post, not client_secret_basic")

            let posted = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, client: "poster", user: user), client: "poster")
            #expect(posted.status == 200, "\(posted.body)")
            #expect(try UnverifiedToken(try #require(posted["id_token"])).header?.algorithm == .es256)
            _ = try await OIDCTokenFixture.verifyIDToken(s, try #require(posted["id_token"]), client: "poster")
            let wrongPost = try await s.form(
                "/oauth/token",
                [("grant_type", "authorization_code"), ("code", "x"), ("client_id", "poster"), ("client_secret", "wrong")])
            Self.expectError(wrongPost, 401, "invalid_client")

            let spa = try await OIDCTokenFixture.exchange(s, try await OIDCTokenFixture.code(s, client: "spa", user: user), client: "spa")
            #expect(spa.status == 200 && spa["id_token"] != nil, "\(spa.body)")
            // An app's own client_id (a Realm client) may not redeem codes.
            let realm = try await s.form("/oauth/token", fields + [("client_id", "myapp")])
            Self.expectError(realm, 400, "unauthorized_client")
        }
    }

    @Test(
        "a code is bound to its client, redirect_uri and PKCE verifier, and lives 60 s: each refusal is invalid_grant", arguments: StoreKind.available
    )
    func bindings(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user, pkce: true)
            Self.expectError(
                try await OIDCTokenFixture.exchange(s, code, extra: [], verifier: String(repeating: "x", count: 43)), 400, "invalid_grant")
            Self.expectError(try await OIDCTokenFixture.exchange(s, code), 400, "invalid_grant")  // no verifier
            var wrongRedirect = [("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", "https://portal.example.com/other")]
            wrongRedirect.append(("code_verifier", OIDCTokenFixture.verifier))
            Self.expectError(try await s.form("/oauth/token", wrongRedirect, headers: [OIDCTokenFixture.basic()]), 400, "invalid_grant")
            Self.expectError(
                try await s.form(
                    "/oauth/token",
                    [("grant_type", "authorization_code"), ("code", code.code), ("client_id", "poster"), ("client_secret", OIDCTokenFixture.secret)]),
                400, "invalid_grant")
            // After every refusal the code still works for its rightful request.
            #expect(try await OIDCTokenFixture.exchange(s, code, verifier: OIDCTokenFixture.verifier).status == 200)

            let old = try await OIDCTokenFixture.code(s, user: user, created: OIDCTokenFixture.now - OIDCAuthorizationCode.lifetime - 1)
            Self.expectError(try await OIDCTokenFixture.exchange(s, old), 400, "invalid_grant")
            Self.expectError(
                try await OIDCTokenFixture.exchange(s, OIDCTokenFixture.IssuedCode(code: "unknown", sid: "", opToken: "", sessionID: "")), 400,
                "invalid_grant")
            Self.expectError(
                try await s.form("/oauth/token", [("grant_type", "authorization_code")], headers: [OIDCTokenFixture.basic()]), 400, "invalid_request")
        }
    }

    @Test(
        "a second use of a code is invalid_grant and ends the session of the first: its access and refresh tokens stop working",
        arguments: StoreKind.available)
    func reuse(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let first = try await OIDCTokenFixture.exchange(s, code)
            #expect(first.status == 200)
            let access = try #require(first["access_token"]), refresh = try #require(first["refresh_token"])
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 200)
            Self.expectError(try await OIDCTokenFixture.exchange(s, code), 400, "invalid_grant")
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 401)
            let introspected = try await s.form("/oauth/introspect", [("token", access)], headers: [OIDCTokenFixture.basic("resource-api")])
            #expect(introspected.object["active"] == false)
            Self.expectError(
                try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: [OIDCTokenFixture.basic()]),
                400, "invalid_grant")
        }
    }

    @Test("a code issued before its OP session ended (RP-initiated logout, a reset) is invalid_grant: no tokens outlive the logout", arguments: StoreKind.available)
    func codeAfterLogout(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let now = OIDCTokenFixture.now
            #expect(try await s.server.store.endOPSession(token: code.opToken, app: "myapp", at: now) != nil)
            Self.expectError(try await OIDCTokenFixture.exchange(s, code), 400, "invalid_grant")
            // A code of a live session still redeems, and a re-authentication (same sid) keeps it live.
            let live = try await OIDCTokenFixture.code(s, user: user)
            _ = try await s.server.store.signInOPSession(app: "myapp", userID: user, amr: ["pwd"], ttl: 3600, current: live.opToken, at: now)
            #expect(try await OIDCTokenFixture.exchange(s, live).status == 200)
        }
    }

    @Test(
        "a used code replayed by another client of the app, or without the right verifier, is invalid_grant and ends nothing",
        arguments: StoreKind.available)
    func replayByAnotherClientEndsNothing(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let first = try await OIDCTokenFixture.exchange(s, code)
            let access = try #require(first["access_token"])
            // poster (confidential, the same app) and spa (public) present portal's used code.
            let byPoster = try await s.form(
                "/oauth/token",
                [("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", "https://portal.example.com/cb"),
                 ("client_id", "poster"), ("client_secret", OIDCTokenFixture.secret)])
            Self.expectError(byPoster, 400, "invalid_grant")
            let bySPA = try await s.form(
                "/oauth/token",
                [("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", "https://portal.example.com/cb"),
                 ("client_id", "spa"), ("code_verifier", OIDCTokenFixture.verifier)])
            Self.expectError(bySPA, 400, "invalid_grant")
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 200, "another client's replay ended portal's session")

            // A PKCE code replayed with a wrong verifier by its own client ends nothing either.
            let spaCode = try await OIDCTokenFixture.code(s, client: "spa", user: user)
            let spaFirst = try await OIDCTokenFixture.exchange(s, spaCode, client: "spa")
            let spaAccess = try #require(spaFirst["access_token"])
            Self.expectError(try await OIDCTokenFixture.exchange(s, spaCode, client: "spa", verifier: String(repeating: "x", count: 43)), 400, "invalid_grant")
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: spaAccess).status == 200, "a wrong verifier's replay ended the session")
            // The rightful replay still ends it (RFC 6749 §4.1.2).
            Self.expectError(try await OIDCTokenFixture.exchange(s, spaCode, client: "spa"), 400, "invalid_grant")
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: spaAccess).status == 401)
        }
    }

    @Test("the sweep keeps a used code for its lifetime: a replay after a sweep still ends the first use's session", arguments: StoreKind.available)
    func reuseAfterSweep(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let first = try await OIDCTokenFixture.exchange(s, code)
            let refresh = try #require(first["refresh_token"])
            // The server's sweep of one-time tokens, as its background upkeep runs it, a second later.
            _ = try await Throttle(store: s.server.store, clock: TokenClock { Date().addingTimeInterval(1) }).purge()
            Self.expectError(try await OIDCTokenFixture.exchange(s, code), 400, "invalid_grant")
            #expect(try await s.server.service.session(id: code.sessionID)?.revokedAt != nil)
            Self.expectError(
                try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: [OIDCTokenFixture.basic()]),
                400, "invalid_grant")
        }
    }
}
