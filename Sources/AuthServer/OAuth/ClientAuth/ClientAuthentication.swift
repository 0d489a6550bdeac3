import Hummingbird
import JOSE
import OIDCProvider

/// What a request presents to prove a client, read by one ``ClientAuthMethod``.
struct ClientCredentials: Sendable {
    /// The client id it names (`nil`: none).
    var id: String?
    /// The secret it presents, for a method that proves one.
    var secret: String?
}

/// One way a client proves itself at the OAuth endpoints (RFC 6749 §2.3, OpenID Connect Core §9):
/// one file with one type conforming to this, and one line in ``ClientAuthMethods/standard``.
/// The endpoints' authentication and discovery's `…_auth_methods_supported` come from that list.
protocol ClientAuthMethod: Sendable {
    /// Its name in discovery and in a client's `token_endpoint_auth_method`.
    static var name: String { get }
    /// Whether it proves a secret the client holds (the introspection endpoint takes only these).
    static var provesSecret: Bool { get }
    /// The credentials `request` presents this way; `nil` when it presents none this way. The
    /// method of a request that presents no other is `none` (``NoClientAuthentication``).
    /// - Throws: ``OAuthError`` `invalid_client` for credentials of this method that cannot be read.
    static func credentials(_ request: Request, form: OAuthForm) throws -> ClientCredentials?
}

/// The client authentication methods of the OAuth endpoints.
enum ClientAuthMethods {
    /// Every method but `none`, which is what a request presenting none of these uses.
    static let standard: [any ClientAuthMethod.Type] = [ClientSecretBasic.self, ClientSecretPost.self]
    /// Every method, `none` last.
    static let all: [any ClientAuthMethod.Type] = standard + [NoClientAuthentication.self]

    /// The methods of the client kinds in `kinds`, in their order, each once: discovery's
    /// `…_auth_methods_supported`; `secretOnly` for an endpoint that takes only secret-proving ones.
    static func names(of kinds: [OAuthClient.Kind], secretOnly: Bool) -> [String] {
        var out: [String] = []
        for name in kinds.flatMap(\.methods) where !out.contains(name) {
            if let method = all.first(where: { $0.name == name }), !secretOnly || method.provesSecret { out.append(name) }
        }
        return out
    }
}

/// The one client authentication of the OAuth endpoints (the token endpoint, introspection,
/// revocation): exactly one method's credentials, a client of that id that authenticates that
/// way, its secret compared in constant time.
enum ClientAuthentication {
    /// - Parameter requireSecret: `true` where only clients that prove a secret may call (introspection).
    /// - Throws: ``OAuthError`` `invalid_client` (401) for wrong, missing or unknown credentials, or a
    ///   method other than the client's; `invalid_request` for two methods at once or a `client_id`
    ///   other than the authenticated client.
    static func authenticate(_ request: Request, form: OAuthForm, clients: OAuthClients, requireSecret: Bool) throws -> OAuthClient {
        guard request.headers[values: .authorization].count <= 1 else { throw OAuthError.invalidRequest("send exactly one Authorization header") }
        var method: any ClientAuthMethod.Type = NoClientAuthentication.self
        var credentials: ClientCredentials?
        var presented: [String] = []
        for candidate in ClientAuthMethods.standard {
            guard let found = try candidate.credentials(request, form: form) else { continue }
            presented.append(candidate.name)
            method = candidate
            credentials = found
        }
        // RFC 6749 §2.3: one authentication method per request.
        guard presented.count <= 1 else { throw OAuthError.invalidRequest("send client credentials once: " + presented.joined(separator: " or ")) }
        if requireSecret, !method.provesSecret { throw OAuthError.invalidClient("this endpoint needs the client's secret (client_secret_basic or client_secret_post)") }
        // A request presenting no other method names itself (`none`).
        let named = try credentials ?? NoClientAuthentication.credentials(request, form: form)
        guard let credentials = named, let id = credentials.id else { throw OAuthError.invalidClient("client_id must name an app or a client of this server") }
        let client: OAuthClient
        switch clients.client(id, method: method.name) {
        case .found(let found): client = found
        case .otherMethod(let other): throw OAuthError.invalidClient("this client authenticates with \(other.authMethods.joined(separator: " or ")), not \(method.name)")
        case .unknown:
            throw method.provesSecret ? refused : OAuthError.invalidClient("client_id must name an app or a client of this server")
        }
        if method.provesSecret {
            guard let expected = client.secret, let secret = credentials.secret, ConstantTime.equals(Array(secret.utf8), expected) else { throw refused }
        }
        if let named = form.optional("client_id"), named != id { throw OAuthError.invalidRequest("client_id differs from the authenticated client") }
        return client
    }

    static let refused = OAuthError.invalidClient("client authentication failed")
}
