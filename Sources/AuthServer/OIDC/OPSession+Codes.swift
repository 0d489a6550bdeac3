public import Sessions

extension OPSession {
    /// RFC 8176 `amr` values of a sign-in by the login methods `methods` (config names, in the
    /// order they proved it): a password is `pwd`, an upstream provider `fed`, a one-time code
    /// (TOTP or recovery code) `otp`, a passkey `hwk` and its user verification `user`, as each
    /// method and factor declares (``AuthenticationMethods``); each value once, in that order,
    /// then `mfa` when two or more methods proved it.
    public static func amr(of methods: [String]) -> [String] { AuthenticationMethods.amr(of: methods) }

    /// Login method names whose ``amr(of:)`` gives back `amr` (`mfa` dropped): how a step-up
    /// carries the OP session's first sign-in into its second step.
    static func methods(reproducing amr: [String]) -> [String] { AuthenticationMethods.methods(reproducing: amr) }
}
