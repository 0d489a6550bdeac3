import JOSE

/// CSRF tokens of the hosted pages' forms. A token is a random value kept in the flow record
/// (``OIDCLoginFlow/csrf``): the page puts it in a hidden field, and a post counts only when it
/// sends it back ( ``matches(_:expected:)``, in constant time) for the flow its URL names. A
/// cross-site page can neither read the token nor name a flow it did not start.
///
/// Against login CSRF (a cross-site page posting its own flow, token and credentials, so that the
/// victim's browser ends up signed in as the attacker) the posts are also checked to come from
/// the server's own pages (``isSameOriginPost(origin:secFetchSite:publicURL:)``).
public enum OIDCCSRF {
    /// A new token: 32 random bytes, base64url.
    /// - Throws: `internal_error` if the random generator fails.
    public static func make() throws -> String { try RandomID.base64URL(bytes: 32) }

    /// `true` when the form sent `sent` and it is `expected`; compared in constant time.
    public static func matches(_ sent: String?, expected: String) -> Bool {
        guard let sent, !expected.isEmpty else { return false }
        return ConstantTime.equals(Array(sent.utf8), Array(expected.utf8))
    }

    /// `false` when the browser says the post came from another site: `Sec-Fetch-Site` other
    /// than `same-origin`, or (without it) an `Origin` other than `public_url`'s origin
    /// (`Origin: null` included, unless the flow is `bound` to the browser: ``FlowBinding``). A
    /// request with neither (curl, an old browser) passes: the CSRF token still guards it.
    public static func isSameOriginPost(origin: String?, secFetchSite: String?, publicURL: String, bound: Bool = false) -> Bool {
        if let site = secFetchSite { return site == "same-origin" }
        guard let origin else { return true }
        if bound, origin == "null" { return true }
        return origin.lowercased() == Self.origin(of: publicURL)
    }

    /// `scheme://host[:port]` of `url`, lower-cased, as a browser serializes an `Origin`.
    package static func origin(of url: String) -> String? {
        guard let parts = OIDCRedirectURI.Parts(url) else { return nil }
        let scheme = parts.scheme.lowercased()
        let defaultPort = (scheme == "https" && parts.port == "443") || (scheme == "http" && parts.port == "80")
        return scheme + "://" + parts.host.lowercased() + (parts.port.map { defaultPort ? "" : ":" + $0 } ?? "")
    }
}
