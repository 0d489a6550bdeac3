import Foundation
import JOSE

extension FacebookProvider {
    /// Where ``exchange(code:redirectURI:)`` sends the code, below ``Configuration/graphURL``.
    public static let codeExchangePath = "/v19.0/oauth/access_token"

    /// Exchanges the code of Facebook's login dialog (the web redirect flow) for the user's access
    /// token at Graph's `oauth/access_token`, then checks that token as ``verify(accessToken:)``
    /// does: a code is only as good as the token it brings.
    /// - Parameter redirectURI: the one the dialog was opened with (Graph compares them).
    /// - Throws: `invalid_grant` (Graph refused the code: unknown, used, expired, or for another
    ///   redirect URI), `invalid_client`, `provider_unavailable` (also for an answer without an
    ///   `access_token` string), and ``verify(accessToken:)``'s codes.
    public func exchange(code: String, redirectURI: String) async throws -> Identity {
        guard !code.isEmpty, code.utf8.count <= 4096 else {
            throw TokenError(.invalidGrant, "the authorization code is empty or longer than 4096 bytes")
        }
        let answer: JSONObject
        do {
            answer = try await get(
                path: Self.codeExchangePath,
                query: [
                    ("client_id", configuration.appID), ("redirect_uri", redirectURI), ("client_secret", configuration.appSecret),
                    ("code", code),
                ],
                what: "Graph oauth/access_token", userTokenCall: false)
        } catch let e as TokenError where e.code == .providerError {
            // Graph answers a bad code with error 100 (subcodes 36007-36009): the code is refused.
            throw TokenError(.invalidGrant, e.message)
        }
        guard case .string(let token)? = answer["access_token"], !token.isEmpty else {
            throw TokenError(.providerUnavailable, "Graph oauth/access_token answered without an \"access_token\" string")
        }
        return try await verify(accessToken: token)
    }
}
