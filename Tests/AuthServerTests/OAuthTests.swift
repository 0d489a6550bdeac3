import Foundation
import JOSE
import Sessions
import Testing

/// The OAuth 2.0 endpoints (docs/oauth.md), over HTTP against the running server, on every store.
@Suite("OAuth 2.0 endpoints over HTTP", .serialized)
struct OAuthTests {
    static func with(_ kind: StoreKind, _ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(kind, apps: OAuthFixture.apps, extra: OAuthFixture.extra, files: OAuthFixture.files, body)
    }

    /// RFC 6749 §5.2: an error body, its code, and a description in RFC 6749's character set.
    static func expectOAuthError(_ a: LiveServer.Answer, _ status: Int, _ error: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.status == status, "\(a.body)", sourceLocation: sourceLocation)
        #expect(a["error"] == error, "\(a.body)", sourceLocation: sourceLocation)
        let description = a["error_description"] ?? ""
        #expect(
            description.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" },
            sourceLocation: sourceLocation)
        #expect(a.header("cache-control") == "no-store", sourceLocation: sourceLocation)
        if status == 401 { #expect(a.header("www-authenticate")?.hasPrefix("Basic") == true, sourceLocation: sourceLocation) }
    }

    @Test("metadata: RFC 8414 members at both paths, no authorization endpoint", arguments: StoreKind.available)
    func metadata(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let a = try await s.call(.GET, "/.well-known/oauth-authorization-server")
            let b = try await s.call(.GET, "/.well-known/openid-configuration")
            #expect(a.status == 200 && b.status == 200)
            #expect(a.object == b.object)
            let expected: JSONObject = [
                "issuer": "http://auth.test",
                "jwks_uri": "http://auth.test/.well-known/jwks.json",
                "token_endpoint": "http://auth.test/oauth/token",
                "introspection_endpoint": "http://auth.test/oauth/introspect",
                "revocation_endpoint": "http://auth.test/oauth/revoke",
                "grant_types_supported": ["refresh_token"],
                "response_types_supported": [],
                "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
                "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
                "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            ]
            #expect(Set(a.object.keys) == Set(expected.keys))
            for (k, v) in expected { #expect(a.object[k] == v, "\(k)") }
        }
    }

    @Test("JWKS: public keys with kid, alg, use sig; the access token's kid is among them", arguments: StoreKind.available)
    func jwks(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let signIn = try await OAuthFixture.signIn(s)
            let a = try await s.call(.GET, "/.well-known/jwks.json")
            #expect(a.status == 200)
            let listed = a.object["keys"]?.arrayValue ?? []
            let keys = listed.compactMap(\.objectValue)
            #expect(!keys.isEmpty)
            for key in keys {
                #expect(key["kid"]?.stringValue?.isEmpty == false)
                #expect(key["alg"] == "ES256")
                #expect(key["use"] == "sig")
                #expect(key["d"] == nil, "no private member")
            }
            let header = try #require(UnverifiedToken(signIn.tokens.accessToken).header)
            #expect(keys.contains { $0["kid"]?.stringValue == header.keyID })
            // The published set verifies the token as RFC 9068 says.
            let verifier = AccessTokenVerifier(keys: try JWKSet(json: a.body), issuer: "http://auth.test", audience: "myapp")
            #expect(try verifier.verify(signIn.tokens.accessToken).subject == signIn.userID)
        }
    }

    @Test("JWKS: the kept document, the store's published keys, with the headers of every JWKS answer", arguments: StoreKind.available)
    func jwksDocument(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let a = try await s.call(.GET, "/.well-known/jwks.json")
            let b = try await s.call(.GET, "/.well-known/jwks.json")
            #expect(a.status == 200 && b.status == 200 && a.body == b.body)
            #expect(a.header("content-type") == "application/json")
            #expect(a.header("cache-control") == "public, max-age=300")
            let published = try await s.server.apps["myapp"]!.sessions.keyRing.jwks()
            #expect(try a.body == JSONValue(parsing: published.jsonString()).jsonString)
        }
    }

    @Test("token: refresh grant, same refresh token without rotation, a new one with it", arguments: StoreKind.available)
    func refreshGrant(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let plain = try await OAuthFixture.signIn(s)
            let a = try await s.form(
                "/oauth/token",
                [
                    ("grant_type", "refresh_token"), ("client_id", "myapp"),
                    ("refresh_token", plain.tokens.refreshToken),
                ])
            #expect(a.status == 200, "\(a.body)")
            #expect(a["token_type"] == "Bearer" && a.object["expires_in"] == .int(1800))
            #expect(a["refresh_token"] == plain.tokens.refreshToken)
            #expect(a.header("cache-control") == "no-store")
            let access = try #require(a["access_token"])
            let claims = try await s.server.apps["myapp"]!.sessions.verifyAccessToken(access)
            #expect(claims.subject == plain.userID && claims.sessionID == plain.tokens.sessionID && claims.clientID == "myapp")

            let rotating = try await OAuthFixture.signIn(s, app: "rotating")
            let r1 = try await s.form(
                "/oauth/token",
                [
                    ("grant_type", "refresh_token"), ("client_id", "rotating"),
                    ("refresh_token", rotating.tokens.refreshToken),
                ])
            #expect(r1.status == 200, "\(r1.body)")
            let next = try #require(r1["refresh_token"])
            #expect(next != rotating.tokens.refreshToken)
            let r2 = try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("client_id", "rotating"), ("refresh_token", next)])
            #expect(r2.status == 200 && r2["refresh_token"] != next)
        }
    }

    @Test("token: refusals are RFC 6749 §5.2 errors", arguments: StoreKind.available)
    func tokenErrors(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let mine = try await OAuthFixture.signIn(s)
            let theirs = try await OAuthFixture.signIn(s, app: "rotating")
            let rt = mine.tokens.refreshToken
            Self.expectOAuthError(try await s.form("/oauth/token", [("client_id", "myapp"), ("refresh_token", rt)]), 400, "invalid_request")
            Self.expectOAuthError(
                try await s.form("/oauth/token", [("grant_type", "password"), ("client_id", "myapp"), ("username", "a")]),
                400, "unsupported_grant_type")
            Self.expectOAuthError(
                try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("client_id", "myapp")]), 400, "invalid_request")
            Self.expectOAuthError(
                try await s.form(
                    "/oauth/token",
                    [
                        ("grant_type", "refresh_token"), ("client_id", "myapp"),
                        ("refresh_token", String(repeating: "A", count: 43)),
                    ]), 400, "invalid_grant")
            // Another app's refresh token (RFC 6749 §6: bound to the client it was issued to); it stays usable by its app.
            Self.expectOAuthError(
                try await s.form(
                    "/oauth/token",
                    [
                        ("grant_type", "refresh_token"), ("client_id", "myapp"),
                        ("refresh_token", theirs.tokens.refreshToken),
                    ]), 400, "invalid_grant")
            #expect(
                try await s.form(
                    "/oauth/token",
                    [
                        ("grant_type", "refresh_token"), ("client_id", "rotating"),
                        ("refresh_token", theirs.tokens.refreshToken),
                    ]
                ).status == 200)
            // Client authentication: no client, an unknown one, a wrong secret.
            Self.expectOAuthError(try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", rt)]), 401, "invalid_client")
            Self.expectOAuthError(
                try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("client_id", "nobody"), ("refresh_token", rt)]),
                401, "invalid_client")
            Self.expectOAuthError(
                try await s.form(
                    "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", rt)],
                    headers: [OAuthFixture.basic("resource-api", "wrong")]), 401, "invalid_client")
            // Not a form; a repeated parameter.
            Self.expectOAuthError(
                try await s.form("/oauth/token", [("grant_type", "refresh_token")], contentType: "application/json"),
                400, "invalid_request")
            Self.expectOAuthError(
                try await s.form(
                    "/oauth/token",
                    [
                        ("grant_type", "refresh_token"), ("grant_type", "refresh_token"),
                        ("client_id", "myapp"), ("refresh_token", rt),
                    ]), 400, "invalid_request")
            // After logout (revocation), the grant is refused.
            try await s.server.apps["myapp"]!.sessions.revokeSession(id: mine.tokens.sessionID)
            let dead = try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("client_id", "myapp"), ("refresh_token", rt)])
            Self.expectOAuthError(dead, 400, "invalid_grant")
            #expect(!dead.body.contains(rt), "the token is never echoed")
        }
    }

    @Test("introspect: Basic of a clients entry; access and refresh tokens of every app", arguments: StoreKind.available)
    func introspect(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let signIn = try await OAuthFixture.signIn(s, app: "rotating")
            Self.expectOAuthError(try await s.form("/oauth/introspect", [("token", signIn.tokens.accessToken)]), 401, "invalid_client")
            Self.expectOAuthError(
                try await s.form(
                    "/oauth/introspect", [("token", signIn.tokens.accessToken)],
                    headers: [OAuthFixture.basic("resource-api", "nope")]), 401, "invalid_client")
            Self.expectOAuthError(
                try await s.form("/oauth/introspect", [("token", signIn.tokens.accessToken), ("client_id", "rotating")]),
                401, "invalid_client")

            let access = try await s.form("/oauth/introspect", [("token", signIn.tokens.accessToken)], headers: [OAuthFixture.basic()])
            #expect(access.status == 200 && access.header("cache-control") == "no-store")
            let o = access.object
            #expect(o["active"] == true && o["token_type"] == "Bearer")
            #expect(o["sub"] == .string(signIn.userID) && o["client_id"] == "rotating" && o["aud"] == "rotating")
            #expect(o["iss"] == "http://auth.test" && o["sid"] == .string(signIn.tokens.sessionID))
            #expect(o["exp"]?.intValue != nil && o["iat"]?.intValue != nil)

            let refresh = try await s.form(
                "/oauth/introspect", [("token", signIn.tokens.refreshToken), ("token_type_hint", "refresh_token")],
                headers: [OAuthFixture.basic()])
            #expect(
                refresh.object["active"] == true && refresh.object["client_id"] == "rotating"
                    && refresh.object["sid"] == .string(signIn.tokens.sessionID))

            for dead in ["garbage", String(repeating: "A", count: 43), signIn.tokens.accessToken + "x"] {
                let a = try await s.form("/oauth/introspect", [("token", dead)], headers: [OAuthFixture.basic()])
                #expect(a.status == 200 && a.object == ["active": false], "RFC 7662 §2.2: nothing but active")
            }
            // A disabled user's tokens are inactive at once (the routes' own check), and live again once enabled.
            let sessions = try #require(s.server.apps["rotating"]).sessions
            try await sessions.setUserDisabled(id: signIn.userID, true)
            for token in [signIn.tokens.accessToken, signIn.tokens.refreshToken] {
                let a = try await s.form("/oauth/introspect", [("token", token)], headers: [OAuthFixture.basic()])
                #expect(a.status == 200 && a.object == ["active": false], "a disabled user's token")
            }
            try await sessions.setUserDisabled(id: signIn.userID, false)
            let again = try await s.form("/oauth/introspect", [("token", signIn.tokens.accessToken)], headers: [OAuthFixture.basic()])
            #expect(again.object["active"] == true)
            // A signed-out session is inactive at once, access token included.
            try await s.server.apps["rotating"]!.sessions.revokeSession(id: signIn.tokens.sessionID)
            let after = try await s.form("/oauth/introspect", [("token", signIn.tokens.accessToken)], headers: [OAuthFixture.basic()])
            #expect(after.object == ["active": false])
        }
    }

    @Test("revoke: RFC 7009 with the app check", arguments: StoreKind.available)
    func revoke(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let sessions = s.server.apps["myapp"]!.sessions
            let mine = try await OAuthFixture.signIn(s)
            let theirs = try await OAuthFixture.signIn(s, app: "rotating")
            // A public client cannot revoke another app's live token, of either kind; it stays live.
            for token in [theirs.tokens.refreshToken, theirs.tokens.accessToken] {
                Self.expectOAuthError(try await s.form("/oauth/revoke", [("token", token), ("client_id", "myapp")]), 400, "unauthorized_client")
            }
            #expect(try await sessions.introspect(theirs.tokens.refreshToken).active)
            // Its own refresh token: 200, the session ends (its access token with it).
            let ok = try await s.form(
                "/oauth/revoke", [("token", mine.tokens.refreshToken), ("token_type_hint", "refresh_token"), ("client_id", "myapp")])
            #expect(ok.status == 200)
            #expect(!(try await sessions.introspect(mine.tokens.accessToken).active))
            // Unknown, malformed, already revoked: 200 (RFC 7009 §2.2).
            for token in [mine.tokens.refreshToken, "garbage", String(repeating: "B", count: 43)] {
                #expect(try await s.form("/oauth/revoke", [("token", token), ("client_id", "myapp")]).status == 200)
            }
            // A clients entry may revoke any app's token, here by its access token.
            let byClient = try await s.form("/oauth/revoke", [("token", theirs.tokens.accessToken)], headers: [OAuthFixture.basic()])
            #expect(byClient.status == 200)
            #expect(!(try await sessions.introspect(theirs.tokens.refreshToken).active))
            // No token; no client at all.
            Self.expectOAuthError(try await s.form("/oauth/revoke", [("client_id", "myapp")]), 400, "invalid_request")
            Self.expectOAuthError(try await s.form("/oauth/revoke", [("token", "x")]), 401, "invalid_client")
        }
    }
}
