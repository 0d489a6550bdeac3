/// What a person typed as a second factor.
public enum MFACode: Sendable, Hashable {
    /// A TOTP code (six digits, spaces ignored).
    case totp(String)
    /// A recovery code.
    case recovery(String)
    /// Either: six digits are read as a TOTP code, anything else as a recovery code.
    case either(String)
}

/// The outcome of checking a second-factor code for a user.
public enum MFACheck: Sendable, Hashable {
    /// The code was right (and is now spent).
    case accepted
    /// The code was wrong, malformed, stale or used; counted towards the lock.
    case refused
    /// The user is locked out for `retryAfter` more seconds after ``SessionManager/mfaFailureLimit``
    /// wrong codes in a row; the code was not looked at.
    case locked(retryAfter: Int64)
}

/// A user's second factors, as `GET BASE/auth/mfa` shows them.
public struct MFAStatus: Sendable, Hashable {
    /// TOTP is on (confirmed).
    public var totp: Bool
    /// Registered passkeys.
    public var passkeys: Int
    /// Unspent recovery codes.
    public var recoveryCodesLeft: Int
}

/// A pending TOTP enrolment: the secret to show once, as text and as an `otpauth://` URI.
public struct TOTPEnrolment: Sendable, Hashable {
    /// Base32, no padding.
    public var secret: String
    public var uri: String
}
