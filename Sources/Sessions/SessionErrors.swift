import JOSE

extension TokenError.Code {
    /// A refresh token was presented again after it had been rotated (and outside the grace
    /// interval, or not the newest spent token): the whole family is now revoked.
    public static let refreshTokenReused = TokenError.Code(rawValue: "refresh_token_reused")
    /// The refresh token's family was revoked (logout, reuse, user action).
    public static let refreshTokenRevoked = TokenError.Code(rawValue: "refresh_token_revoked")
    /// The refresh token's family is past its absolute or idle lifetime.
    public static let refreshTokenExpired = TokenError.Code(rawValue: "refresh_token_expired")
    /// The refresh token is not one this store issued (or its family was purged).
    public static let invalidRefreshToken = TokenError.Code(rawValue: "invalid_refresh_token")
    /// An access token verified, but the session (family) it belongs to is revoked or gone.
    public static let sessionRevoked = TokenError.Code(rawValue: "session_revoked")
    /// The identity (provider, subject) already belongs to another user.
    public static let identityInUse = TokenError.Code(rawValue: "identity_in_use")
    /// No user has the given id.
    public static let userNotFound = TokenError.Code(rawValue: "user_not_found")
    /// The store cannot be reached or failed for a reason that is not the caller's input.
    public static let storeUnavailable = TokenError.Code(rawValue: "store_unavailable")
    /// The store's schema is newer than this code knows; refuse rather than guess.
    public static let storeTooNew = TokenError.Code(rawValue: "store_too_new")
}

extension TokenError.Code {
    // Shared with other modules; kept internal so that a module importing both Sessions and
    // Identity never sees two public declarations of the same name.
    static let invalidConfiguration = TokenError.Code(rawValue: "invalid_configuration")
}

extension TokenError.Code {
    /// The user is disabled (`tokentool user disable`): no sign-in, no refresh, no API use.
    public static let userDisabled = TokenError.Code(rawValue: "user_disabled")
    /// No API key with that id belongs to the user.
    public static let apiKeyNotFound = TokenError.Code(rawValue: "api_key_not_found")
    /// The user already has an API key with that name.
    public static let apiKeyExists = TokenError.Code(rawValue: "api_key_exists")
}

extension TokenError.Code {
    /// The API key of a login is unknown, disabled or deleted.
    public static let invalidAPIKey = TokenError.Code(rawValue: "invalid_api_key")
}
