public import JOSE
import Sessions

/// An RFC 6749 §5.2 error of the OAuth endpoints: `{"error","error_description"}`, 400, or 401
/// (with `WWW-Authenticate: Basic`) when client authentication failed.
///
/// The OAuth routes answer in this shape, not the App Services one; ``OAuthEndpoint/respond(_:)``
/// (in AuthServer) is the one place where errors become these responses.
package struct OAuthError: Error, Sendable, Hashable {
    package var status: Int
    /// The RFC 6749 / RFC 7009 error code.
    package var error: String
    package var description: String

    package init(status: Int, error: String, description: String) {
        self.status = status
        self.error = error
        self.description = description
    }

    package static func invalidRequest(_ d: String) -> OAuthError { OAuthError(status: 400, error: "invalid_request", description: d) }
    package static func invalidClient(_ d: String) -> OAuthError { OAuthError(status: 401, error: "invalid_client", description: d) }
    package static func invalidGrant(_ d: String) -> OAuthError { OAuthError(status: 400, error: "invalid_grant", description: d) }
    package static func unauthorizedClient(_ d: String) -> OAuthError { OAuthError(status: 400, error: "unauthorized_client", description: d) }
    package static func unsupportedGrantType(_ d: String) -> OAuthError { OAuthError(status: 400, error: "unsupported_grant_type", description: d) }

    /// The OAuth error of a Sessions refusal; `nil` for codes that are not the request's fault
    /// (those go to the server's error mapping: 503, 500).
    package init?(_ e: TokenError) {
        switch e.code {
        case .unauthorizedClient:
            self = .unauthorizedClient(e.message)
        case .userDisabled:
            self = .invalidGrant("the user is disabled")
        case _ where e.code.rejectsToken:
            // Expired, revoked, reused, unknown, another client's: RFC 6749 §5.2 invalid_grant.
            self = .invalidGrant("the refresh token is invalid, expired or revoked (\(e.code.rawValue))")
        default:
            return nil
        }
    }

    /// RFC 6749 §5.2: the description is `%x20-21 / %x23-5B / %x5D-7E` (printable ASCII without `"` and `\`).
    package static func describable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" }).prefix(200))
    }
}
