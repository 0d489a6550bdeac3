import Foundation
import Identity
import JOSE
import OIDCProvider

/// Facebook's web flow: the Login Dialog, then the Graph API's code exchange.
extension FacebookLogin: WebSignInMethod {
    static var callbackName: String { "facebook" }
    static var title: String { "Facebook" }
    var webSignInProblem: String? { nil }

    func authorizationURL(_ urls: ServerConfig.ProviderURLs, callback: String, state: String, flow: WebSignInFlow) -> String {
        OIDCAuthorizationError.append(
            [
                ("client_id", provider.configuration.appID), ("redirect_uri", callback), ("response_type", "code"),
                ("scope", "public_profile,email"), ("state", state),
            ], to: urls.facebookDialog + ServerConfig.ProviderURLs.facebookDialogPath)
    }

    func finishWebSignIn(_ answer: WebSignInAnswer, flow: WebSignInFlow, callback: String) async throws -> LoginProof {
        .identity(try await provider.exchange(code: try answer.code(), redirectURI: callback).named(Self.name), keep: nil)
    }
}
