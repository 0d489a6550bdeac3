/// Redirect URIs of OpenID Connect clients: what may be registered, and when a requested one is
/// a registered one.
///
/// Matching is simple string comparison (RFC 6749 §3.1.2.3, RFC 3986 §6.2.1; OIDC Core §3.1.2.1:
/// "MUST exactly match"): no wildcards, no prefixes, no case folding. The one exception is RFC
/// 8252 §7.3: for a loopback host (`localhost`, `127.0.0.1`, `[::1]`) the port is ignored, since
/// a native app listens on whatever port the system gives it.
public enum OIDCRedirectURI {
    /// The hosts whose port is ignored, and the only ones `http` is allowed for.
    public static let loopbackHosts: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// An absolute URI split where the port rule needs it: `scheme://userinfo@host:port` + the rest.
    package struct Parts: Equatable {
        package var scheme: Substring
        package var userinfo: Substring?
        /// As written: an IPv6 literal keeps its brackets.
        package var host: Substring
        package var port: Substring?
        /// Path, query and fragment, as written.
        package var rest: Substring

        package init?(_ text: String) {
            guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
            scheme = text[..<colon]
            guard let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else { return nil }
            let authorityStart = text.index(colon, offsetBy: 3)
            let authorityEnd = text[authorityStart...].firstIndex(where: { "/?#".contains($0) }) ?? text.endIndex
            var authority = text[authorityStart..<authorityEnd]
            rest = text[authorityEnd...]
            if let at = authority.lastIndex(of: "@") {
                userinfo = authority[..<at]
                authority = authority[authority.index(after: at)...]
            }
            if authority.hasPrefix("[") {
                guard let close = authority.firstIndex(of: "]") else { return nil }
                host = authority[...close]
                let after = authority[authority.index(after: close)...]
                if after.isEmpty { return }
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            } else if let c = authority.firstIndex(of: ":") {
                host = authority[..<c]
                port = authority[authority.index(after: c)...]
            } else {
                host = authority
            }
            guard !host.isEmpty else { return nil }
            if let port, !(1...5).contains(port.count) || !port.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        }

        package var isLoopback: Bool { OIDCRedirectURI.loopbackHosts.contains(String(host)) }
    }

    /// Why `uri` cannot be registered, or `nil` when it can: an absolute `https` URI, or `http`
    /// on a loopback host (RFC 8252 §7.3, §8.3), without a fragment (RFC 6749 §3.1.2), without
    /// credentials, spaces or control characters.
    public static func registrationProblem(_ uri: String) -> String? {
        guard let parts = Parts(uri) else { return "must be an absolute URL like https://app.example.com/callback" }
        if uri.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "must not contain spaces or control characters"
        }
        if parts.userinfo != nil { return "must not contain credentials (user@)" }
        if parts.rest.contains("#") { return "must not contain a fragment (RFC 6749 §3.1.2)" }
        switch parts.scheme {
        case "https": return nil
        case "http" where parts.isLoopback: return nil
        case "http": return "http is allowed only for localhost, 127.0.0.1 and [::1]; use https"
        default: return "must be https, or http on localhost, 127.0.0.1 or [::1]"
        }
    }

    /// `true` when `requested` is `registered`: the same string, or for a loopback host the same
    /// string but for the port (either may have one, or none).
    public static func matches(registered: String, requested: String) -> Bool {
        if registered == requested { return true }
        guard let r = Parts(registered), r.isLoopback, var q = Parts(requested), q.isLoopback else { return false }
        q.port = r.port
        return q == r
    }

    /// The registered URI `requested` matches, if any.
    public static func match(_ requested: String, in registered: [String]) -> String? {
        registered.first { matches(registered: $0, requested: requested) }
    }
}
