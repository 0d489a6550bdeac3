/// The OP browser session's cookie: one per app (an OP session belongs to one app's user), named
/// `__Host-tokentool-op-APP` when `public_url` is https and `tokentool-op-APP` otherwise, whose
/// value is the session's one-time token (43 base64url characters; the store keeps only its hash).
///
/// Attributes: `HttpOnly`, `SameSite=Lax` (sent on the top-level GET that brings the browser back
/// from a relying party, never on a cross-site POST), `Path=/`, and `Secure` with the `__Host-`
/// prefix when `public_url` is https (the prefix makes the browser refuse a cookie of that name
/// set by a sibling host, or without `Secure`, or with a `Domain` or another `Path`). `Max-Age`
/// is what remains of the session.
public enum OPSessionCookie {
    /// Bounds on what ``token(in:app:secure:)`` reads: header lines, bytes of each, and pairs.
    static let maxHeaders = 8
    static let maxHeaderBytes = 8192
    static let maxPairs = 64

    /// `true` when `public_url` is https: the cookie is then `Secure` and `__Host-` prefixed.
    public static func isSecure(publicURL: String) -> Bool {
        publicURL.lowercased().hasPrefix("https://")
    }

    /// The cookie's name for `app` (an app id: `A-Z a-z 0-9 - _ .`, all valid in a cookie name).
    public static func name(app: String, secure: Bool) -> String {
        (secure ? "__Host-" : "") + "tokentool-op-" + app
    }

    /// The `Set-Cookie` value that starts (or re-authenticates) the session: `token` for `maxAge` seconds.
    public static func setCookie(token: String, app: String, secure: Bool, maxAge: Int64) -> String {
        "\(name(app: app, secure: secure))=\(token); Max-Age=\(max(0, maxAge)); Path=/; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that ends it in the browser (the store's record ends separately).
    public static func clearCookie(app: String, secure: Bool) -> String {
        setCookie(token: "", app: app, secure: secure, maxAge: 0)
    }

    /// The session token the request's `Cookie` header lines carry for `app`, or `nil`.
    ///
    /// Reads at most ``maxHeaders`` lines of at most ``maxHeaderBytes`` bytes and ``maxPairs``
    /// pairs in all (a longer line is skipped whole). Only the exact name counts: over https the
    /// `__Host-` one, never the bare name a sibling host or plain http could have set. Of several
    /// cookies of that name, the first whose value is a well-formed token (43 base64url
    /// characters) is taken; others and malformed values are ignored.
    public static func token(in cookieHeaders: [String], app: String, secure: Bool) -> String? {
        value(named: name(app: app, secure: secure), in: cookieHeaders)
    }

    /// The first well-formed value (43 base64url characters) of the cookie named `wanted`, read
    /// within the bounds ``token(in:app:secure:)`` says.
    package static func value(named wanted: String, in cookieHeaders: [String]) -> String? {
        var pairs = 0
        for line in cookieHeaders.prefix(maxHeaders) where line.utf8.count <= maxHeaderBytes {
            for pair in line.split(separator: ";", omittingEmptySubsequences: true) {
                pairs += 1
                if pairs > maxPairs { return nil }
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<eq].trimmingSpaces, value = pair[pair.index(after: eq)...].trimmingSpaces
                if name == wanted, isWellFormed(value) { return String(value) }
            }
        }
        return nil
    }

    /// A one-time token as issued: 43 characters of the base64url alphabet (the shape of an S256 challenge).
    package static func isWellFormed(_ value: Substring) -> Bool { PKCE.isValidChallenge(String(value)) }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (RFC 6265 §5.2's whitespace of a cookie pair).
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
