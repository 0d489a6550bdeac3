import Hummingbird
import JOSE
import OIDCProvider

/// A token request as a grant gets it: the form, the client the table authenticated, and the
/// request's context.
struct GrantRequest: Sendable {
    let form: OAuthForm
    let client: OAuthClient
    let context: AuthRequestContext
    /// The OpenID Connect client it is (`nil` for a service or a public app).
    var oidcClient: OIDCClientConfig? { client.relyingParty }
}

/// One grant of `POST /oauth/token` (RFC 6749 §4 and §6): its `grant_type`, whether a config
/// advertises it, and its answer. A grant is one file with one type conforming to this and one line in
/// ``OAuthGrants/standard``; the token endpoint's dispatch, its refusal of any other
/// `grant_type`, discovery's `grant_types_supported` and the OpenAPI document's `grant_type`
/// come from that list.
protocol OAuthGrant: Sendable {
    /// Its `grant_type` value.
    static var grantType: String { get }
    /// Whether a server of `config` lists it (discovery, the refusal of other types); `provider`:
    /// the server is an OpenID Provider (it has OpenID Connect clients, or the document asked for
    /// is the provider's), which the authorization code needs. A request naming a grant is
    /// answered by that grant either way (the authorization code refuses any caller but such a client).
    static func isAdvertised(by config: ServerConfig, provider: Bool) -> Bool
    /// Made once when the server starts.
    init(server: AuthServer)
    /// The token response, or an ``OAuthError`` (or a Sessions refusal ``OAuthEndpoint`` maps).
    func answer(_ request: GrantRequest) async throws -> Response
}

/// The grants of the token endpoint.
enum OAuthGrants {
    /// Every grant, in the order discovery lists them.
    static let standard: [any OAuthGrant.Type] = [AuthorizationCodeGrant.self, RefreshTokenGrant.self]

    /// The `grant_type`s a server of `config` lists, in ``standard``'s order; `provider` as for
    /// ``OAuthGrant/isAdvertised(by:provider:)`` (by default: whether it has OpenID Connect clients).
    static func names(offeredBy config: ServerConfig, provider: Bool? = nil) -> [String] {
        let provider = provider ?? !config.oidcClients.isEmpty
        return standard.filter { $0.isAdvertised(by: config, provider: provider) }.map { $0.grantType }
    }

    /// Every grant, made for `server`, by `grant_type`.
    static func make(for server: AuthServer) -> [String: any OAuthGrant] {
        var grants: [String: any OAuthGrant] = [:]
        for grant in standard { grants[grant.grantType] = grant.init(server: server) }
        return grants
    }

    /// The refusal of any other `grant_type`, naming those `offered`.
    static func unsupported(offered: [String]) -> OAuthError {
        guard let last = offered.last, offered.count > 1 else {
            return OAuthError.unsupportedGrantType("only the \(offered.first ?? "refresh_token") grant is supported")
        }
        return OAuthError.unsupportedGrantType("the grant_type must be " + offered.dropLast().joined(separator: ", ") + " or " + last)
    }
}
