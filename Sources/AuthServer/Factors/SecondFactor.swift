/// A second factor: what a sign-in adds to its first method before anything is issued, at both
/// front doors (the App Services `…/local-userpass/mfa` step and the hosted login's second page).
/// One type per factor, one line in ``SecondFactors/standard``.
protocol SecondFactor: Sendable {
    /// The method name an ``Authentication`` records for it.
    static var name: String { get }
    /// Its RFC 8176 `amr` value.
    static var amr: String { get }
}

/// The second factors the server offers.
enum SecondFactors {
    static let standard: [any SecondFactor.Type] = [TOTPFactor.self, PasskeyFactor.self]
}

/// A TOTP code from an authenticator app (RFC 6238), or one of the user's recovery codes.
struct TOTPFactor: SecondFactor {
    static let name = "totp"
    static let amr = "otp"
}

/// A passkey's assertion after the password: the same credential that can sign in alone.
struct PasskeyFactor: SecondFactor {
    static let name = PasskeyLogin.name
    static let amr = "hwk"
}
