public import JOSE

extension TokenError.Code {
    /// The password fails the rule: fewer than the minimum or more than 128 Unicode scalars
    /// after NFC normalisation.
    public static let invalidPassword = TokenError.Code("invalid_password", .rejected)
    /// The email address is empty, too long, or not of the form `local@domain`.
    public static let invalidEmail = TokenError.Code("invalid_email", .rejected)
    /// A confirmation or reset token that is unknown, already used, expired, of the other kind,
    /// or whose token id does not match: one code for all, so that an answer tells nothing more.
    public static let userpassTokenInvalid = TokenError.Code("userpass_token_invalid", .rejected)
    /// The email or the password is wrong (the answer never says which, nor whether the email
    /// is registered).
    public static let loginFailed = TokenError.Code("login_failed", .rejected)
    /// The password is right, but the email address is not confirmed yet.
    public static let emailNotConfirmed = TokenError.Code("email_not_confirmed", .rejected)
    /// A throttling limit is exceeded, or too many password hashes are already waiting.
    public static let tooManyRequests = TokenError.Code("too_many_requests", .rejected)

    /// Every code the accounts policy (email/password sign-in, throttling) mints.
    public static let accountsCodes: [TokenError.Code] = [
        .invalidPassword, .invalidEmail, .userpassTokenInvalid, .loginFailed, .emailNotConfirmed, .tooManyRequests,
    ]
}
