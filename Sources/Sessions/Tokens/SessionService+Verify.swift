import Foundation
import JOSE

extension SessionService {
    /// Verifies an access token issued for any of `audiences` against this store's published
    /// keys (one verifier per audience set, kept by the key ring); with `checkSession`, also that
    /// its session (`sid`) is still live (not revoked, not expired, not purged). A server whose
    /// apps share the store checks the tokens of all of them before it knows the app.
    /// - Throws: the codes of ``AccessTokenVerifier``; `session_revoked` when `checkSession`
    ///   finds the session dead; `invalid_configuration` for an empty `audiences`; `store_unavailable`.
    public func verifyAccessToken(_ token: String, audiences: Set<String>, checkSession: Bool = true) async throws -> AccessTokenClaims {
        guard !audiences.isEmpty else { throw TokenError(.invalidConfiguration, "an access token verifier needs at least one audience") }
        let options = AccessTokenVerifier.options(
            issuer: configuration.issuer, audiences: audiences,
            leeway: TimeInterval(configuration.leeway), clock: configuration.clock)
        let verifier = try await keyRing.accessTokenVerifier(options: options, audiences: options.audiences)
        let claims = try AccessTokenClaims(verifier.verify(token).claims)
        if checkSession {
            guard let sid = claims.sessionID else { throw TokenError(.missingClaim, "access token has no sid to check", claim: "sid") }
            let now = configuration.now
            let session = try await store.read { tx in try await tx.session(id: sid, forUpdate: false) }
            guard let session, session.isLive(at: now), session.userID == claims.subject else {
                throw TokenError(
                    .sessionRevoked,
                    "the session of this access token is \(session == nil ? "gone" : (session!.revokedAt != nil ? "revoked" : "expired"))")
            }
        }
        return claims
    }

    /// RFC 7662 introspection of an access token or a refresh token.
    ///
    /// Never throws for a bad token: an invalid, expired, spent or revoked token is
    /// `{"active": false}` and ``Introspection/reason`` says why (not part of the RFC 7662 shape).
    /// - Parameter audiences: the apps whose access tokens count; refresh tokens of every client of
    ///   the store are introspected.
    /// - Throws: `store_unavailable` and configuration errors only (`invalid_configuration` for an
    ///   access token and an empty `audiences`).
    /// - Parameter singleSpace: as ``checkAccess(_:audiences:requirement:presentedAs:singleSpace:)``'s.
    public func introspect(_ token: String, audiences: Set<String>, singleSpace: Bool = false) async throws -> Introspection {
        if RefreshToken.looksLikeRefreshToken(token) {
            let hash = RefreshToken.hash(token)
            let now = configuration.now
            let found: (RefreshTokenRecord, SessionRecord, UserRecord?)? = try await store.transaction { tx in
                guard let t = try await tx.refreshToken(hash: hash), let f = try await tx.session(id: t.sessionID, forUpdate: false) else {
                    return nil
                }
                return (t, f, try await tx.user(id: f.userID))
            }
            guard let (record, session, user) = found else {
                return .inactive(TokenError(.invalidRefreshToken, "refresh token is not known to this store"))
            }
            if session.revokedAt != nil { return .inactive(TokenError(.refreshTokenRevoked, "session was revoked")) }
            // A disabled user's tokens are refused everywhere at once: introspection included.
            guard let user, user.disabledAt == nil else { return .inactive(TokenError(.userDisabled, "the user is disabled or gone")) }
            if !session.isLive(at: now) { return .inactive(TokenError(.refreshTokenExpired, "session expired")) }
            if record.usedAt != nil { return .inactive(TokenError(.refreshTokenReused, "refresh token was already used")) }
            var o = JSONObject()
            o["active"] = true
            o["token_type"] = "refresh_token"
            o["client_id"] = .string(session.clientID)
            o["sub"] = .string(session.userID)
            o["iss"] = .string(configuration.issuer)
            o["iat"] = .int(record.createdAt)
            o["exp"] = .int(min(session.expiresAt, session.idleExpiresAt))
            o["sid"] = .string(session.id)
            if let scopes = session.signIn?.scopes, !scopes.isEmpty { o["scope"] = .string(scopes.joined(separator: " ")) }
            return Introspection(active: true, response: o, reason: nil)
        }
        do {
            // The resources' own check: the session live, its user present, enabled and of the app.
            let c = try await checkAccess(token, audiences: audiences, presentedAs: .inspected, singleSpace: singleSpace).claims
            var o = JSONObject()
            o["active"] = true
            o["token_type"] = "access_token"
            o["client_id"] = .string(c.clientID)
            o["sub"] = .string(c.subject)
            o["iss"] = .string(c.issuer)
            o["aud"] = c.audience.count == 1 ? .string(c.audience[0]) : .array(c.audience.map(JSONValue.string))
            o["iat"] = .int(c.issuedAt)
            o["exp"] = .int(c.expiresAt)
            o["jti"] = .string(c.jwtID)
            if let sid = c.sessionID { o["sid"] = .string(sid) }
            if let scope = c.scope { o["scope"] = .string(scope) }
            if let jkt = c.keyThumbprint { o["cnf"] = .object(["jkt": .string(jkt)]) }
            return Introspection(active: true, response: o, reason: nil)
        } catch let refusal as AccessRefusal {
            return .inactive(refusal.tokenError)
        }
    }
}
