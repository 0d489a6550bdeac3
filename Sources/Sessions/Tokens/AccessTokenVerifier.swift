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
