import Foundation
import Hummingbird
import JOSE
import Sessions

/// An RFC 6749 §5.2 error of the OAuth endpoints: `{"error","error_description"}`, 400, or 401
/// (with `WWW-Authenticate: Basic`) when client authentication failed.
///
/// The OAuth routes answer in this shape, not the App Services one; ``OAuthEndpoint/respond(_:)``
/// is the one place where errors become these responses.
struct OAuthError: Error, Sendable, Hashable {
    var status: Int
    /// The RFC 6749 / RFC 7009 error code.
    var error: String
    var description: String

    init(status: Int, error: String, description: String) {
        self.status = status
        self.error = error
        self.description = description
    }

    static func invalidRequest(_ d: String) -> OAuthError { OAuthError(status: 400, error: "invalid_request", description: d) }
    static func invalidClient(_ d: String) -> OAuthError { OAuthError(status: 401, error: "invalid_client", description: d) }
    static func invalidGrant(_ d: String) -> OAuthError { OAuthError(status: 400, error: "invalid_grant", description: d) }
    static func unauthorizedClient(_ d: String) -> OAuthError { OAuthError(status: 400, error: "unauthorized_client", description: d) }
    static func unsupportedGrantType(_ d: String) -> OAuthError { OAuthError(status: 400, error: "unsupported_grant_type", description: d) }

    /// The OAuth error of a Sessions refusal; `nil` for codes that are not the request's fault
    /// (those go to the server's error mapping: 503, 500).
    init?(_ e: TokenError) {
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
    static func describable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" }).prefix(200))
    }

    var response: Response {
        var headers = HTTPFields()
        if status == 401 { headers[.wwwAuthenticate] = "Basic realm=\"tokentool\"" }
        let body: JSONObject = ["error": .string(error), "error_description": .string(Self.describable(description))]
        return JSONResponse.make(status: status, .object(body), headers: headers, noStore: true)
    }
}

/// An `application/x-www-form-urlencoded` request body (RFC 6749 §3.2, Appendix B): at most
/// 64 KiB, each parameter at most once, an empty value the same as an absent one.
struct OAuthForm: Sendable {
    let fields: [String: String]

    /// - Throws: ``OAuthError`` `invalid_request` for another content type, a body over the
    ///   limit, bad percent-encoding or a repeated parameter.
    static func read(_ request: Request, context: AuthRequestContext) async throws -> OAuthForm {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw OAuthError.invalidRequest("the body must be application/x-www-form-urlencoded")
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: context.maxUploadSize) } catch {
            throw OAuthError.invalidRequest("the request body is larger than \(context.maxUploadSize) bytes")
        }
        var fields: [String: String] = [:]
        for pair in String(decoding: buffer.readableBytesView, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(kv[0]), let value = kv.count > 1 ? decode(kv[1]) : "" else {
                throw OAuthError.invalidRequest("the body is not valid form encoding")
            }
            guard fields[name] == nil else { throw OAuthError.invalidRequest("parameter \(describable(name)) is repeated") }
            if !value.isEmpty { fields[name] = value }
        }
        return OAuthForm(fields: fields)
    }

    private static func decode(_ s: Substring) -> String? {
        String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private static func describable(_ s: String) -> String { OAuthError.describable(String(s.prefix(40))) }

    /// A required parameter of at most `maxBytes`.
    func required(_ name: String, maxBytes: Int = 16 * 1024) throws -> String {
        guard let v = fields[name] else { throw OAuthError.invalidRequest("the \(name) parameter is missing") }
        guard v.utf8.count <= maxBytes else { throw OAuthError.invalidRequest("the \(name) parameter is too long") }
        return v
    }

    func optional(_ name: String) -> String? { fields[name] }
}
