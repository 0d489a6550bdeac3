import Foundation
import Identity
import JOSE
import OIDCProvider

/// Google's web flow: OpenID Connect's code flow with PKCE, checked as the native login checks the ID token.
extension GoogleLogin: WebSignInMethod {
    static var callbackName: String { "google" }
    static var title: String { "Google" }
    static var usesPKCE: Bool { true }

    var webSignInProblem: String? {
        provider.configuration.clientSecret == nil ? "the app's oauth2-google provider has no client_secret_file, which web sign-in needs" : nil
    }

    func authorizationURL(_ urls: ServerConfig.ProviderURLs, callback: String, state: String, flow: WebSignInFlow) -> String {
        OIDCAuthorizationError.append(
            [
                ("client_id", clientID), ("redirect_uri", callback), ("response_type", "code"), ("scope", "openid email profile"),
                ("state", state), ("nonce", flow.nonce), ("code_challenge", flow.challenge),
                ("code_challenge_method", flow.challenge == nil ? nil : "S256"), ("hd", provider.configuration.hostedDomain),
            ], to: urls.googleAuthorize)
    }

    func finishWebSignIn(_ answer: WebSignInAnswer, flow: WebSignInFlow, callback: String) async throws -> LoginProof {
        let result = try await provider.exchange(
            code: try answer.code(), clientID: clientID, redirectURI: callback, nonce: flow.nonce, codeVerifier: flow.verifier)
        return .identity(result.identity.named(Self.name), keep: nil)
    }
}
