import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// `grant_type=refresh_token` (RFC 6749 §6), always listed: an OpenID Connect client's refresh
/// (``AuthServer/oidcRefreshGrant(_:client:)``), else the App Services session's in its own app
/// (``AuthServer/oauthRefresh(_:client:)``).
struct RefreshTokenGrant: OAuthGrant {
    static let grantType = "refresh_token"
    static func isAdvertised(by config: ServerConfig, provider: Bool) -> Bool { true }

    let server: AuthServer

    init(server: AuthServer) { self.server = server }

    func answer(_ request: GrantRequest) async throws -> Response {
        let token = try request.form.required("refresh_token", maxBytes: 256)
        if let client = request.oidcClient { return try await server.oidcRefreshGrant(token, client: client) }
        let (appID, pair) = try await server.oauthRefresh(token, client: request.client)
        request.context.app = appID
        return TokenResponse.make(pair)
    }
}

extension AuthServer {
    /// The refresh grant (RFC 6749 §6) of `/oauth/token`: the token's own app issues the new
    /// access token, rotating the refresh token when that app has `refresh_rotation` and
    /// returning the same one otherwise. A public client may refresh only its own app's tokens
    /// (`invalid_grant` otherwise, nothing spent); a service any app's.
    /// - Returns: the app id and the token pair.
    /// - Throws: ``OAuthError`` `invalid_grant`; Sessions' refusals (mapped by ``OAuthEndpoint``).
    func oauthRefresh(_ token: String, client: OAuthClient) async throws -> (app: String, tokens: TokenPair) {
        do {
            let pair = try await refreshInItsApp(token) { app in
                client.servesEveryApp || client.app == app
            }
            return (pair.clientID, pair)
        } catch let e as TokenError where e.code == .invalidGrant {
            throw OAuthError.invalidGrant("the refresh token was issued to another client")
        }
    }
}
