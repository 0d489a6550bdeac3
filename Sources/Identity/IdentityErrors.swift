import JOSE

extension TokenError.Code {
    /// The provider could not be reached, timed out, answered 5xx/429, or sent a response that is
    /// too large or not what its protocol promises (including a malformed JWKS). Infrastructure: CLI exit 2.
    public static let providerUnavailable = TokenError.Code(rawValue: "provider_unavailable")
    /// The provider refused the request with an error this module has no more specific code for.
    public static let providerError = TokenError.Code(rawValue: "provider_error")
    /// The provider refused our client credentials (client id/secret, Apple client-secret JWT,
    /// Facebook app token). Configuration: CLI exit 2.
    public static let invalidClient = TokenError.Code(rawValue: "invalid_client")
    /// The authorization code is invalid, expired, already used or issued to another client.
    public static let invalidGrant = TokenError.Code(rawValue: "invalid_grant")
    /// The redirect URI does not match the one registered or used to obtain the code. Configuration: CLI exit 2.
    public static let redirectURIMismatch = TokenError.Code(rawValue: "redirect_uri_mismatch")
    /// The token's `nonce` is absent or matches neither the raw nonce nor its SHA-256 hex.
    public static let invalidNonce = TokenError.Code(rawValue: "invalid_nonce")
    /// The Facebook access token was issued to another app.
    public static let foreignApp = TokenError.Code(rawValue: "foreign_app")
    /// The Google token's `hd` (hosted domain) is absent or not the configured one.
    public static let invalidHostedDomain = TokenError.Code(rawValue: "invalid_hosted_domain")
    /// The provider says the access token is not valid (revoked, expired, malformed).
    public static let invalidToken = TokenError.Code(rawValue: "invalid_token")
    /// The provider configuration is unusable (bad URL, no client id, bad key, secret lifetime too long).
    public static let invalidConfiguration = TokenError.Code(rawValue: "invalid_configuration")
}
