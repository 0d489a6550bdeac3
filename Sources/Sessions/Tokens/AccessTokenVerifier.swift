public import Foundation
public import JOSE

/// Verifies access tokens for a resource server, from a published JWKS: the signature, the
/// header `typ` (`at+jwt`, RFC 9068 §4), `iss`, `aud`, `exp`/`iat` and the claims RFC 9068
/// requires (`iss exp aud sub client_id iat jti`).
///
/// ```swift
/// let jwks = try JWKSet(json: publishedJWKS)
/// let verifier = AccessTokenVerifier(keys: jwks, issuer: "https://auth.example.com", audience: "api")
/// let claims = try verifier.verify(bearerToken)
/// ```
/// - Throws (from ``verify(_:)``): the JWT codes (`malformed`, `invalid_signature`, `key_not_found`,
///   `expired`, `invalid_issuer`, `invalid_audience`, `missing_claim`, `invalid_claim` for a wrong `typ`, …).
public struct AccessTokenVerifier: Sendable {
    public let verifier: JWTVerifier

    public init(keys: JWKSet, issuer: String, audience: String, leeway: TimeInterval = 60, clock: TokenClock = .system) {
        verifier = JWTVerifier(keys: keys, options: Self.options(issuer: issuer, audiences: [audience], leeway: leeway, clock: clock))
    }

    /// The checks of an RFC 9068 access token from `issuer` for one of `audiences`, for verifiers
    /// that get their keys elsewhere (a remote JWKS through Identity's `KeySource`).
    /// - Precondition: `audiences` is not empty (an empty set would not check `aud` at all).
    public static func options(
        issuer: String, audiences: Set<String>, leeway: TimeInterval = 60,
        clock: TokenClock = .system
    ) -> VerifierOptions {
        precondition(!audiences.isEmpty, "an access token verifier needs at least one audience")
        return VerifierOptions(
            issuers: [issuer], audiences: audiences,
            requiredClaims: ["iss", "exp", "aud", "sub", "client_id", "iat", "jti"],
            type: "at+jwt", leeway: leeway, clock: clock)
    }

    /// The verified claims.
    public func verify(_ token: String) throws -> AccessTokenClaims {
        try AccessTokenClaims(verifier.verify(token).claims)
    }
}

extension SessionManager {
    /// Verifies an access token against this store's published keys; with `checkSession`, also
    /// that its session (`sid`) is still live (not revoked, not expired, not purged).
    /// - Throws: the codes of ``AccessTokenVerifier``; `session_revoked` when `checkSession`
    ///   finds the session dead; `store_unavailable`.
    public func verifyAccessToken(_ token: String, checkSession: Bool = true) async throws -> AccessTokenClaims {
        try await verifyAccessToken(token, audiences: [configuration.audience], checkSession: checkSession)
    }

    /// ``verifyAccessToken(_:checkSession:)`` for a token issued for any of `audiences`: a server
    /// whose apps share one store and key ring checks the tokens of all of them (an empty set
    /// means this configuration's audience).
    public func verifyAccessToken(_ token: String, audiences: Set<String>, checkSession: Bool = true) async throws -> AccessTokenClaims {
        let options = AccessTokenVerifier.options(
            issuer: configuration.issuer,
            audiences: audiences.isEmpty ? [configuration.audience] : audiences,
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
    /// - Parameter audiences: the apps whose access tokens count (default: this configuration's
    ///   audience); refresh tokens of every client of the store are introspected.
    /// - Throws: `store_unavailable` and configuration errors only.
    public func introspect(_ token: String, audiences: Set<String> = []) async throws -> Introspection {
        if RefreshToken.looksLikeRefreshToken(token) {
            let hash = RefreshToken.hash(token)
            let now = configuration.now
            let found: (RefreshTokenRecord, SessionRecord)? = try await store.transaction { tx in
                guard let t = try await tx.refreshToken(hash: hash), let f = try await tx.session(id: t.sessionID, forUpdate: false) else {
                    return nil
                }
                return (t, f)
            }
            guard let (record, session) = found else {
                return .inactive(TokenError(.invalidRefreshToken, "refresh token is not known to this store"))
            }
            if session.revokedAt != nil { return .inactive(TokenError(.refreshTokenRevoked, "session was revoked")) }
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
            return Introspection(active: true, response: o, reason: nil)
        }
        do {
            let c = try await verifyAccessToken(token, audiences: audiences, checkSession: true)
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
            return Introspection(active: true, response: o, reason: nil)
        } catch let e as TokenError where e.code.rejectsToken {
            return .inactive(e)
        }
    }
}

/// An RFC 7662 introspection response.
public struct Introspection: Sendable {
    /// `active` (RFC 7662 §2.2).
    public var active: Bool
    /// The response object: `{"active":false}` for an inactive token, else `active`, `token_type`,
    /// `client_id`, `sub`, `iss`, `aud`, `iat`, `exp`, `jti`, `sid`.
    public var response: JSONObject
    /// Why an inactive token is inactive; kept out of ``response`` as RFC 7662 §2.2 asks.
    public var reason: TokenError?

    static func inactive(_ reason: TokenError) -> Introspection {
        Introspection(active: false, response: ["active": false], reason: reason)
    }
}
