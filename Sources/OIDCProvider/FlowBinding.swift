import JOSE

/// Binds a flow a browser runs to that browser (docs/oidc.md, "The browser session and the
/// hosted pages"): against login CSRF, where another browser (the attacker's victim) is made to
/// post the flow's form or open its callback URL and ends up signed in as the attacker.
///
/// The answer that starts a flow sets a cookie holding a random value (a browser keeps one value
/// and reuses it for every flow it starts), and the flow's record keeps that value's SHA-256
/// (``digest(_:)``). A post or callback of the flow counts only from a browser whose cookie has
/// the value (``holds(_:in:kind:secure:)``). Flows stored before the binding existed (no digest)
/// keep the older rule until they expire (10 minutes).
public enum FlowBinding {
    /// Which flows a cookie binds: the hosted pages' (`SameSite=Lax`: every post is the server's
    /// own page) or web sign-in's (`SameSite=None; Secure` over https, so that Apple's cross-site
    /// `form_post` brings it back; `Lax` over plain http, where `None` is refused).
    public enum Kind: Sendable {
        case hosted, webSignIn

        var baseName: String { self == .hosted ? "tokentool-flow" : "tokentool-wsi" }
    }

    /// How long the cookie lives: a flow's lifetime, renewed with each flow.
    package static let maxAge: Int64 = 600

    /// The cookie's name: `__Host-` prefixed over https.
    public static func name(_ kind: Kind, secure: Bool) -> String { (secure ? "__Host-" : "") + kind.baseName }

    /// The browser's value: the request's cookie when it holds a well-formed one, else a new one
    /// with the `Set-Cookie` that gives it to the browser.
    /// - Throws: `internal_error` if the random generator fails.
    package static func value(for cookieHeaders: [String], kind: Kind, secure: Bool) throws -> (value: String, setCookie: String) {
        let value = try OPSessionCookie.value(named: name(kind, secure: secure), in: cookieHeaders) ?? RandomID.base64URL(bytes: 32)
        return (value, setCookie(value, kind: kind, secure: secure))
    }

    package static func setCookie(_ value: String, kind: Kind, secure: Bool) -> String {
        let sameSite = kind == .webSignIn && secure ? "None" : "Lax"
        return "\(name(kind, secure: secure))=\(value); Max-Age=\(maxAge); Path=/; HttpOnly; SameSite=\(sameSite)" + (secure ? "; Secure" : "")
    }

    /// What a flow record keeps of the value: its SHA-256, base64url.
    public static func digest(_ value: String) -> String { Base64URL.encode(SHA2.sha256(Array(value.utf8))) }

    /// `true` when the request's cookies hold the value whose digest the flow kept; `true` for a
    /// flow stored before flows were bound (`stored` is `nil`).
    package static func holds(_ stored: String?, in cookieHeaders: [String], kind: Kind, secure: Bool) -> Bool {
        guard let stored else { return true }
        guard let value = OPSessionCookie.value(named: name(kind, secure: secure), in: cookieHeaders) else { return false }
        return ConstantTime.equals(Array(digest(value).utf8), Array(stored.utf8))
    }
}
