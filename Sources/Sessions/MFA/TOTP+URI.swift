extension TOTP {
    /// The `otpauth://` URI an authenticator app reads from a QR code (Google Authenticator's Key
    /// Uri Format): `otpauth://totp/{app}:{email}?secret={base32}&issuer={app}`.
    ///
    /// The app name and the email are percent-encoded as UTF-8, every character outside RFC 3986's
    /// unreserved set (`A–Z a–z 0–9 - . _ ~`) written `%XX`: a space is `%20` (never `+`, which the
    /// format does not decode), `@` is `%40`, `:` is `%3A`, so neither part can end the label early
    /// or start a parameter. The algorithm, digits and period are the format's defaults (SHA1, 6,
    /// 30) and left out. The secret is base32 without padding.
    public func uri(app: String, email: String) -> String {
        let issuer = AccountMail.percentEncoded(app)
        return "otpauth://totp/\(issuer):\(AccountMail.percentEncoded(email))?secret=\(base32Secret)&issuer=\(issuer)"
    }
}
