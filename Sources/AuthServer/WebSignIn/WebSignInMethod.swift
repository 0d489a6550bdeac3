import Foundation
import Identity
import JOSE
import OIDCProvider

/// A login method that also signs in by the provider's own browser redirect flow, the server
/// being the provider's client (``LoginCapabilities/webRedirect``): it says where to send the
/// browser, and turns the provider's answer at the callback into the same ``LoginProof`` its
/// native login makes, through the same provider checks.
protocol WebSignInMethod: LoginMethod {
    /// The callback's last path segment: `PUBLIC_URL/oauth/callback/{callbackName}`.
    static var callbackName: String { get }
    /// The provider's name as people know it: the login page's button says "Continue with" it.
    static var title: String { get }
    /// Whether the flow sends a PKCE S256 challenge (RFC 7636).
    static var usesPKCE: Bool { get }
    /// Whether the provider posts its answer (`response_mode=form_post`) rather than redirecting.
    static var postsAnswer: Bool { get }
    /// Why this app's method cannot run the web flow (a credential it lacks), or `nil`.
    var webSignInProblem: String? { get }
    /// The provider's authorization URL for one flow.
    func authorizationURL(_ urls: ServerConfig.ProviderURLs, callback: String, state: String, flow: WebSignInFlow) -> String
    /// The provider's answer at the callback (its query or form fields, `code` present and no
    /// `error`), made a proof.
    /// - Throws: the provider's codes (a refused code or token, `provider_unavailable`).
    func finishWebSignIn(_ answer: WebSignInAnswer, flow: WebSignInFlow, callback: String) async throws -> LoginProof
}

extension WebSignInMethod {
    static var usesPKCE: Bool { false }
    static var postsAnswer: Bool { false }
}

/// The login methods that sign in by their provider's web flow: those of the registry that are
/// ``WebSignInMethod``s, in its order (the order of the login page's buttons).
enum WebSignInMethods {
    static let standard: [any WebSignInMethod.Type] = LoginMethodRegistry.standard.methods.compactMap { $0 as? any WebSignInMethod.Type }

    /// The login method name of the callback named `callbackName`.
    static func methodName(callback callbackName: String) -> String? { standard.first { $0.callbackName == callbackName }?.name }
}

/// The fields of the provider's answer at the callback (the query, or Apple's posted form).
struct WebSignInAnswer: Sendable {
    let fields: [String: String]

    /// The authorization code.
    /// - Throws: `invalid_grant` without one (or with one over 4 KiB).
    func code() throws -> String {
        guard let code = fields["code"], !code.isEmpty, code.utf8.count <= 4096 else {
            throw TokenError(.invalidGrant, "the provider's answer has no authorization code")
        }
        return code
    }

    /// The provider's refusal (`error`, with `error_description` or Facebook's `error_reason`),
    /// as a bounded line of printable text; `nil` when it sent none.
    var refusal: String? {
        guard let error = fields["error"] else { return nil }
        let detail = fields["error_description"] ?? fields["error_reason"]
        return Self.printable(error, 64) + (detail.map { ": " + Self.printable($0, 160) } ?? "")
    }

    /// Printable ASCII of `text`, at most `limit` characters (what a message may show of a provider's words).
    static func printable(_ text: String, _ limit: Int) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }).prefix(limit))
    }
}
