import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Resource-server verification and RFC 7662 introspection, on every store.
@Suite struct VerificationTests {
    @Test(arguments: StoreKind.available)
    func resourceServerVerifiesFromThePublishedJWKS(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let pair = try await Conformance.firstPair(sessions)
            let published = try await sessions.keyRing.jwks().jsonString()  // what the resource server fetched
            let jwks = try JWKSet(json: published)
            func verifier(iss: String = "https://auth.test", aud: String = "https://api.test") -> AccessTokenVerifier {
                AccessTokenVerifier(keys: jwks, issuer: iss, audience: aud, leeway: 60, clock: clock.tokenClock)
            }
            let claims = try verifier().verify(pair.accessToken)
            #expect(claims.subject == "alice" && claims.sessionID == pair.sessionID && claims.clientID == "ios-app")
            #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try verifier(aud: "https://other.test").verify(pair.accessToken) }
            #expect(throws: TokenError(.invalidIssuer, "", claim: "iss")) { try verifier(iss: "https://evil.test").verify(pair.accessToken) }

            // An ID token or any other JWT signed by the same key is not an access token (typ).
            let record = try #require(try await t.store.transaction { tx in try await tx.activeSigningKey() })
            let key = try JWK(json: record.privateJWK)
            let idToken = try JWTSigner(key: key, keyID: record.keyID).sign(try UnverifiedToken(pair.accessToken).claims!)
            #expect(throws: TokenError(.invalidClaim, "", claim: "typ")) { try verifier().verify(idToken) }

            // Expiry, with the leeway.
            clock.advance(1800 + 60)
            #expect(throws: TokenError(.expired, "", claim: "exp")) { try verifier().verify(pair.accessToken) }
        }
    }

    @Test(arguments: StoreKind.available)
    func introspectionFollowsRFC7662(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let pair = try await Conformance.firstPair(sessions)

            let access = try await sessions.introspect(pair.accessToken)
            #expect(access.active)
            #expect(access.response["active"] == .bool(true))
            #expect(access.response["token_type"] == "access_token")
            #expect(access.response["sub"] == "alice")
            #expect(access.response["client_id"] == "ios-app")
            #expect(access.response["exp"] == .int(clock.now + 1800))
            #expect(access.response["aud"] == "https://api.test")

            let refresh = try await sessions.introspect(pair.refreshToken)
            #expect(refresh.active && refresh.response["token_type"] == "refresh_token" && refresh.response["sid"] == .string(pair.sessionID))

            _ = try await sessions.refresh(pair.refreshToken)
            let spent = try await sessions.introspect(pair.refreshToken)
            #expect(!spent.active && spent.response.map(\.key) == ["active"])  // RFC 7662 §2.2: nothing else
            #expect(spent.reason?.code == .refreshTokenReused)

            try await sessions.revoke(pair.accessToken)  // logout by access token: its sid
            let revoked = try await sessions.introspect(pair.accessToken)
            #expect(!revoked.active && revoked.reason?.code == .sessionRevoked)
            let garbage = try await sessions.introspect("not.a.token")
            #expect(!garbage.active && garbage.reason?.code == .malformed)
        }
    }
}
