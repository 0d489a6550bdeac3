import OIDCProvider

extension OIDCPages {
    /// The headers a hosted page is served with: those of ``AccountPages/headers`` (no script,
    /// the stylesheet by its hash, `frame-ancestors 'none'`, `base-uri 'none'`,
    /// `Referrer-Policy: no-referrer`, `Cache-Control: no-store`, `nosniff`), with `form-action`
    /// widened to the flow's redirect URI when there is one.
    ///
    /// Why: a browser checks `form-action` on every redirect that follows a form submission, not
    /// only on the form's own target (CSP3 §6.4.1, which Chromium enforces). The login and consent
    /// forms post to the page itself, and the answer is a `303` to the client's
    /// `redirect_uri?code=…` (or `?error=access_denied`); under `form-action 'self'` alone
    /// Chromium stops there. So the page of a flow allows the one origin that flow's answer goes
    /// to (``formActionSource(redirectURI:)``), and nothing else: the web sign-in buttons are
    /// links, not forms, and need no entry.
    /// A page with the passkey button (`script`) also allows the server's own scripts and
    /// fetches (`script-src 'self'; connect-src 'self'`): ``PasskeyScript`` and its options call.
    /// - Parameter redirectURI: the flow's redirect URI as requested (a loopback one with its
    ///   port); `nil` for a page whose form never leads off the server (error, signed out).
    public static func headers(redirectURI: String?, script: Bool = false) -> [(name: String, value: String)] {
        AccountPages.headers.map { header in
            guard header.name == "Content-Security-Policy" else { return header }
            var value = header.value
            if let source = redirectURI.map(formActionSource(redirectURI:)) {
                value = value.replacingOccurrences(of: "form-action 'self'", with: "form-action 'self' \(source)")
            }
            if script {
                value = value.replacingOccurrences(of: "default-src 'none';", with: "default-src 'none'; script-src 'self'; connect-src 'self';")
            }
            return (name: header.name, value: value)
        }
    }

    /// The CSP source expression that allows a form submission's redirect to `redirectURI`: its
    /// origin (`https://app.example.com`, `http://127.0.0.1:5173`), with no path (CSP3 §6.7.2.13
    /// ignores a source's path after a redirect anyway). A host a CSP source cannot spell (an
    /// IPv6 literal such as `[::1]`, or anything but letters, digits, `-` and `.`) falls back to
    /// the scheme alone (`http:`), which is still no `*`.
    public static func formActionSource(redirectURI: String) -> String {
        guard let parts = OIDCRedirectURI.Parts(redirectURI) else { return "'none'" }
        let scheme = parts.scheme.lowercased()
        let cspScheme = scheme.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || "+-.".utf8.contains($0) }
        guard cspScheme else { return "'none'" }
        let hostIsPlain = parts.host.utf8.allSatisfy {
            ($0 >= 97 && $0 <= 122) || ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 46
        }
        guard hostIsPlain else { return scheme + ":" }
        return scheme + "://" + parts.host.lowercased() + (parts.port.map { ":" + $0 } ?? "")
    }
}
