import Hummingbird
import OIDCProvider

/// `grant_type=authorization_code` (RFC 6749 §4.1.3, OIDC Core §3.1.3), listed by an OpenID
/// Provider, for its OpenID Connect clients alone: the exchange is ``AuthServer/oidcCodeGrant(_:client:)``.
struct AuthorizationCodeGrant: OAuthGrant {
    static let grantType = "authorization_code"
    static func isAdvertised(by config: ServerConfig, provider: Bool) -> Bool { provider }

    let server: AuthServer

    init(server: AuthServer) { self.server = server }

    func answer(_ request: GrantRequest) async throws -> Response {
        guard let client = request.oidcClient else {
            throw OAuthError.unauthorizedClient("the authorization_code grant is for OpenID Connect clients")
        }
        return try await server.oidcCodeGrant(request.form, client: client)
    }
}
