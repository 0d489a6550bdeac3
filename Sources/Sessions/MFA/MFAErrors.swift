public import JOSE

extension TokenError.Code {
    /// A second-factor code that is refused: a TOTP code that is wrong, malformed, outside the
    /// one-step window, or whose step is the last accepted step or older (a replay); or a recovery
    /// code that is malformed, unknown or already used. One code for all, so an answer tells nothing more.
    public static let invalidMFACode = TokenError.Code("invalid_mfa_code", .rejected)

    /// Every code of the second factors (TOTP, recovery codes).
    public static let mfaCodes: [TokenError.Code] = [.invalidMFACode]
}
