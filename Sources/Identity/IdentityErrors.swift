public import JOSE

extension TokenError.Code {
    /// The provider could not be reached, timed out, answered 5xx/429, or sent a response that is
    /// too large or not what its protocol promises (including a malformed JWKS).
    public static let providerUnavailable = TokenError.Code("provider_unavailable", .infrastructure)
    /// The provider refused the request with an error this module has no more specific code for.
    public static let providerError = TokenError.Code("provider_error", .rejected)
    /// The provider refused our client credentials (client id/secret, Apple client-secret JWT,
    /// Facebook app token).
    public static let invalidClient = TokenError.Code("invalid_client", .configuration)
    /// The redirect URI does not match the one registered or used to obtain the code.
    public static let redirectURIMismatch = TokenError.Code("redirect_uri_mismatch", .configuration)
    /// The token's `nonce` is absent or matches neither the raw nonce nor its SHA-256 hex.
    public static let invalidNonce = TokenError.Code("invalid_nonce", .rejected)
    /// The Facebook access token was issued to another app.
    public static let foreignApp = TokenError.Code("foreign_app", .rejected)
    /// The Google token's `hd` (hosted domain) is absent or not the configured one.
    public static let invalidHostedDomain = TokenError.Code("invalid_hosted_domain", .rejected)
    /// The provider says the access token is not valid (revoked, expired, malformed).
    public static let invalidToken = TokenError.Code("invalid_token", .rejected)
    /// The app's custom function refused the sign-in (it answered 4xx).
    public static let customFunctionRefused = TokenError.Code("function_refused", .rejected)
    /// The app's custom function could not be reached, timed out, answered 3xx or 5xx, or sent an
    /// answer that is not `{"id": …}`.
    public static let customFunctionFailed = TokenError.Code("function_failed", .infrastructure)

    /// Every code the Identity module declares (it mints JOSE's `invalid_grant` and
    /// `invalid_configuration` too).
    public static let identityCodes: [TokenError.Code] =
        [
            .providerUnavailable, .providerError, .invalidClient, .redirectURIMismatch,
            .invalidNonce, .foreignApp, .invalidHostedDomain, .invalidToken,
            .customFunctionRefused, .customFunctionFailed,
        ] + webAuthnCodes
}
