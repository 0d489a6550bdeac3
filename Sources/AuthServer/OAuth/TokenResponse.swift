import Hummingbird
import JOSE
import Sessions

/// The token endpoint's one answer (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3), whatever the
/// grant: 200 `{"access_token","token_type","expires_in","refresh_token"}`, then `scope` and
/// `id_token` when the grant has them, with `Cache-Control: no-store`. The `token_type` is the
/// pair's (``TokenPair/tokenType``).
enum TokenResponse {
    /// - Parameters:
    ///   - scopes: what was granted (an OpenID Connect client's), `nil` for a token without scopes.
    ///   - idToken: the signed ID token when `openid` was granted.
    static func make(_ tokens: TokenPair, scopes: [String]? = nil, idToken: String? = nil) -> Response {
        var body: JSONObject = [
            "access_token": .string(tokens.accessToken), "token_type": .string(tokens.tokenType), "expires_in": .int(tokens.expiresIn),
            "refresh_token": .string(tokens.refreshToken),
        ]
        if let scopes { body["scope"] = .string(scopes.joined(separator: " ")) }
        if let idToken { body["id_token"] = .string(idToken) }
        return JSONResponse.ok(body, noStore: true)
    }
}
