import Foundation
public import Sessions

/// An authorization request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1) that passed every check that
/// needs no browser session: its client, redirect URI, PKCE challenge and scopes are settled.
public struct OIDCAuthorizationRequest: Sendable {
    /// OIDC Core §3.1.2.1 `prompt` values the server honours (discovery's `prompt_values_supported`).
    public enum Prompt: String, Sendable, Hashable, CaseIterable {
        case none, login, consent
    }

    public var client: OIDCClientConfig
    /// Where the answer goes: the `redirect_uri` as sent (a loopback one with its own port), or
    /// the client's only registered one when none was sent.
    public var redirectURI: String
    /// `true` when the request carried `redirect_uri`: the token request must then send the same
    /// (RFC 6749 §4.1.3).
    public var redirectURIWasSent: Bool
    /// The requested scopes the client may have and the server knows, in request order, each once.
    public var scopes: [String]
    public var state: String?
    public var nonce: String?
    /// An S256 `code_challenge` (43 base64url characters); `nil` when none was sent.
    public var codeChallenge: String?
    public var prompt: Set<Prompt>
    /// Seconds since the last sign-in after which the user must sign in again.
    public var maxAge: Int64?
    /// Prefills the login page's email.
    public var loginHint: String?
    /// An ID token the server issued before, unverified yet (the endpoint checks it against its keys).
    public var idTokenHint: String?
    /// `acr_values`, in request order.
    public var acrValues: [String]

    /// `true` when `acr_values` asks for a second factor (`urn:tokentool:acr:mfa`): a step-up.
    public var requiresMFA: Bool { acrValues.contains(SessionSignIn.acrMFA) }

    /// With `openid`, an OpenID Connect request (an ID token is issued); without, plain OAuth 2.0.
    public var isOpenID: Bool { scopes.contains("openid") }

    /// `302` target of a success: `redirect_uri?code=…&state=…&iss=…` (RFC 6749 §4.1.2, RFC 9207).
    public func successLocation(code: String, issuer: String) -> String {
        OIDCAuthorizationError.append([("code", code), ("state", state), ("iss", issuer)], to: redirectURI)
    }

    /// An error to send back to the client once the request is valid (`login_required`,
    /// `consent_required`, `access_denied`, `unmet_authentication_requirements`).
    public func error(_ error: String, _ description: String, issuer: String) -> OIDCAuthorizationError {
        OIDCAuthorizationError(redirectURI: redirectURI, error: error, description: description, state: state, issuer: issuer)
    }
}

/// An authorization error sent to the client's redirect URI (RFC 6749 §4.1.2.1, RFC 9207).
public struct OIDCAuthorizationError: Sendable, Hashable {
    public var redirectURI: String
    /// The RFC 6749 / OIDC Core §3.1.2.6 error code.
    public var error: String
    public var description: String
    public var state: String?
    public var issuer: String

    public init(redirectURI: String, error: String, description: String, state: String?, issuer: String) {
        self.redirectURI = redirectURI
        self.error = error
        self.description = description
        self.state = state
        self.issuer = issuer
    }

    /// `302` target: `redirect_uri?error=…&error_description=…&state=…&iss=…`, the description in
    /// RFC 6749's character set.
    public var location: String {
        Self.append(
            [("error", error), ("error_description", OAuthError.describable(description)), ("state", state), ("iss", issuer)], to: redirectURI)
    }

    /// `uri` with `parameters` added to its query (RFC 6749 §4.1.2: keeping any query it has),
    /// each value percent-encoded but for RFC 3986's unreserved characters; `nil` values left out.
    package static func append(_ parameters: [(String, String?)], to uri: String) -> String {
        let query = parameters.compactMap { name, value in value.map { "\(name)=\(escape($0))" } }.joined(separator: "&")
        return uri + (uri.contains("?") ? "&" : "?") + query
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
}

/// What the authorization endpoint does with a request (``OIDCAuthorizationRequest/parse(_:clients:issuer:)``).
public enum OIDCAuthorizationOutcome: Sendable {
    /// The 400 HTML error page with this message, never a redirect: the client is unknown, or the
    /// redirect URI is missing (with several registered), repeated or not registered.
    case errorPage(String)
    /// A `302` to ``OIDCAuthorizationError/location``.
    case redirect(OIDCAuthorizationError)
    /// Checked; what the browser session decides comes next.
    case valid(OIDCAuthorizationRequest)
}

extension OIDCAuthorizationRequest {
    /// `true` when the browser's OP `session` meets what this request asks of the sign-in, for a
    /// flow that began at `flowStarted`: with `prompt=login` a sign-in since then, with `max_age`
    /// an `auth_time` within it, with `acr_values=urn:tokentool:acr:mfa` `mfa` among its `amr`.
    /// `secondFactorDue`: the user has a second factor (turned on since the browser signed in),
    /// so a session without `mfa` does not meet any request. A flow issues no code until its own
    /// login page or second step made this true.
    public func isMet(by session: OPSession, flowStarted: Int64, at now: Int64, secondFactorDue: Bool) -> Bool {
        guard isFresh(session, flowStarted: flowStarted, at: now) else { return false }
        if requiresMFA || secondFactorDue, !session.amr.contains("mfa") { return false }
        return true
    }

    /// The sign-in part of ``isMet(by:flowStarted:at:secondFactorDue:)``: `prompt=login` and `max_age`.
    public func isFresh(_ session: OPSession, flowStarted: Int64, at now: Int64) -> Bool {
        if prompt.contains(.login), session.authTime < flowStarted { return false }
        return !session.exceeds(maxAge: maxAge, at: now)
    }
}
