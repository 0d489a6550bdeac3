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

/// Who is calling an OAuth endpoint (RFC 6749 §2.3): a `clients` entry proved by HTTP Basic, a
/// public client that only names itself with `client_id` (an app id), or an OpenID Connect
/// client authenticated by its registered `token_endpoint_auth_method`.
enum OAuthCaller: Sendable, Hashable {
    case client(String)
    case publicApp(String)
    /// An OpenID Connect client (``ServerConfig/oidcClients``): a confidential one proved its
    /// secret (HTTP Basic or the form's `client_secret`, as registered), a public one (`none`) named itself.
    case oidcClient(String)

    /// - Parameter requireSecret: `true` where only clients with a secret may call (introspection).
    /// - Throws: ``OAuthError`` `invalid_client` (401) for wrong, missing or unknown credentials,
    ///   or a method other than the client's registered one; `invalid_request` for two methods
    ///   at once or a `client_id` other than the authenticated client.
    static func authenticate(_ request: Request, form: OAuthForm, config: ServerConfig, requireSecret: Bool) throws -> OAuthCaller {
        let headers = request.headers[values: .authorization]
        guard headers.count <= 1 else { throw OAuthError.invalidRequest("send exactly one Authorization header") }
        let namedInBody = form.optional("client_id")
        if let header = headers.first {
            // RFC 6749 §2.3: one authentication method per request.
            if form.optional("client_secret") != nil { throw OAuthError.invalidRequest("send client credentials once: HTTP Basic or the body") }
            let (id, secret) = try basic(header)
            if let client = config.oidcClients[id] {
                try check(client, method: .clientSecretBasic, secret: secret)
                if let namedInBody, namedInBody != id { throw OAuthError.invalidRequest("client_id differs from the authenticated client") }
                return .oidcClient(id)
            }
            guard let client = config.clients[id], ConstantTime.equals(Array(secret.utf8), client.secret) else { throw refused }
            if let namedInBody, namedInBody != id { throw OAuthError.invalidRequest("client_id differs from the authenticated client") }
            return .client(id)
        }
        if let secret = form.optional("client_secret") {
            guard let id = namedInBody, let client = config.oidcClients[id] else {
                throw OAuthError.invalidClient("send client credentials with HTTP Basic, not in the body")
            }
            try check(client, method: .clientSecretPost, secret: secret)
            return .oidcClient(id)
        }
        if let id = namedInBody, let client = config.oidcClients[id] {
            guard client.authMethod == .none else {
                throw OAuthError.invalidClient("this client authenticates with \(client.authMethod.rawValue)")
            }
            guard !requireSecret else { throw OAuthError.invalidClient("this endpoint needs a client with a secret") }
            return .oidcClient(id)
        }
        guard !requireSecret else { throw OAuthError.invalidClient("this endpoint needs HTTP Basic client authentication") }
        guard let id = namedInBody, config.apps[id] != nil else {
            throw OAuthError.invalidClient("client_id must name an app or a client of this server")
        }
        return .publicApp(id)
    }

    private static let refused = OAuthError.invalidClient("client authentication failed")

    /// An OpenID Connect client's secret, sent with `method`: the client's registered method, and
    /// its secret (compared in constant time).
    private static func check(_ client: OIDCClientConfig, method: OIDCClientConfig.AuthMethod, secret: String) throws {
        guard client.authMethod == method else {
            throw OAuthError.invalidClient("this client authenticates with \(client.authMethod.rawValue), not \(method.rawValue)")
        }
        guard let expected = client.secret, ConstantTime.equals(Array(secret.utf8), expected) else { throw refused }
    }

    /// RFC 6749 §2.3.1: `Basic base64(urlencode(id) ":" urlencode(secret))`.
    private static func basic(_ header: String) throws -> (id: String, secret: String) {
        guard header.utf8.count <= 4096, header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: header.dropFirst(6).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":"),
            let id = text[..<colon].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
            let secret = text[text.index(after: colon)...].replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        else { throw refused }
        return (id, secret)
    }
}
