import JOSE
import Sessions

extension AuthServer {
    /// The refresh grant (RFC 6749 §6) of `/oauth/token`: the token's own app issues the new
    /// access token, rotating the refresh token when that app has `refresh_rotation` and
    /// returning the same one otherwise. A public client may refresh only its own app's tokens
    /// (`invalid_grant` otherwise, nothing spent); a `clients` entry any app's.
    /// - Returns: the app id and the token pair.
    /// - Throws: ``OAuthError`` `invalid_grant`; Sessions' refusals (mapped by ``OAuthEndpoint``).
    func oauthRefresh(_ token: String, caller: OAuthCaller) async throws -> (app: String, tokens: TokenPair) {
        do {
            let pair = try await refreshInItsApp(token) { app in
                if case .publicApp(let id) = caller { return id == app }
                return true
            }
            return (pair.clientID, pair)
        } catch let e as TokenError where e.code == .invalidGrant {
            throw OAuthError.invalidGrant("the refresh token was issued to another client")
        }
    }
}
