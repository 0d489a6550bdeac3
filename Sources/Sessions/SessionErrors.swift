public import JOSE

extension TokenError.Code {
    /// A refresh token was presented again after it had been rotated (and outside the grace
    /// interval, or not the newest spent token): the whole session is now revoked.
    public static let refreshTokenReused = TokenError.Code("refresh_token_reused", .rejected)
    /// The refresh token's session was revoked (logout, reuse, user action).
    public static let refreshTokenRevoked = TokenError.Code("refresh_token_revoked", .rejected)
    /// The refresh token's session is past its absolute or idle lifetime.
    public static let refreshTokenExpired = TokenError.Code("refresh_token_expired", .rejected)
    /// The refresh token is not one this store issued (or its session was purged).
    public static let invalidRefreshToken = TokenError.Code("invalid_refresh_token", .rejected)
    /// An access token verified, but the session it belongs to is revoked or gone.
    public static let sessionRevoked = TokenError.Code("session_revoked", .rejected)
    /// The identity (provider, subject) already belongs to another user.
    public static let identityInUse = TokenError.Code("identity_in_use", .rejected)
    /// No user has the given id.
    public static let userNotFound = TokenError.Code("user_not_found", .rejected)
    /// The store cannot be reached or failed for a reason that is not the caller's input.
    public static let storeUnavailable = TokenError.Code("store_unavailable", .infrastructure)
    /// The store's schema is newer than this code knows; refuse rather than guess.
    public static let storeTooNew = TokenError.Code("store_too_new", .configuration)
    /// A public client named a live token issued to another client (RFC 7009 §2.1
    /// `unauthorized_client`): the token stays live.
    public static let unauthorizedClient = TokenError.Code("unauthorized_client", .rejected)
    /// The user is disabled (`tokentool user disable`): no sign-in, no refresh, no API use.
    public static let userDisabled = TokenError.Code("user_disabled", .rejected)
    /// No API key with that id belongs to the user.
    public static let apiKeyNotFound = TokenError.Code("api_key_not_found", .rejected)
    /// The user already has an API key with that name.
    public static let apiKeyExists = TokenError.Code("api_key_exists", .rejected)
    /// The API key of a login is unknown, disabled or deleted.
    public static let invalidAPIKey = TokenError.Code("invalid_api_key", .rejected)

    /// Every code the Sessions module and its stores mint, the accounts policy's included
    /// (their configuration errors are JOSE's `invalid_configuration`, another client's token JOSE's `invalid_grant`).
    public static let sessionsCodes: [TokenError.Code] =
        [
            .refreshTokenReused, .refreshTokenRevoked, .refreshTokenExpired, .invalidRefreshToken,
            .sessionRevoked, .identityInUse, .userNotFound, .storeUnavailable, .storeTooNew,
            .unauthorizedClient, .userDisabled, .apiKeyNotFound, .apiKeyExists, .invalidAPIKey,
        ] + accountsCodes + mfaCodes
}
