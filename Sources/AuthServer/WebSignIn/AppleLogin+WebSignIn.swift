import Foundation
import Identity
import JOSE
import OIDCProvider

extension AppleLogin: WebSignInMethod {
    static var callbackName: String { "apple" }
    static var title: String { "Apple" }
    /// Apple sends the name and email scopes' answer only by `form_post`.
    static var postsAnswer: Bool { true }

    var webSignInProblem: String? {
        web == nil ? "the app's oauth2-apple provider has no team_id, key_id and private_key_file, which web sign-in needs" : nil
    }

    func authorizationURL(_ urls: ServerConfig.ProviderURLs, callback: String, state: String, flow: WebSignInFlow) -> String {
        OIDCAuthorizationError.append(
            [
                ("client_id", webClientID), ("redirect_uri", callback), ("response_type", "code"), ("scope", "name email"),
                ("response_mode", "form_post"), ("state", state), ("nonce", flow.nonce),
            ], to: urls.apple + ServerConfig.ProviderURLs.appleAuthorizePath)
    }

    /// The code is exchanged for `web_client_id` (whose id_token must name it as `aud`); the
    /// refresh token is kept for that client, so that deleting the user revokes it. The first
    /// sign-in's `user` JSON (`{"name":{"firstName","lastName"},"email"}`) supplies the name,
    /// which Apple never puts in the id_token.
    func finishWebSignIn(_ answer: WebSignInAnswer, flow: WebSignInFlow, callback: String) async throws -> LoginProof {
        guard let web else { throw TokenError(.invalidConfiguration, webSignInProblem ?? "no web client") }
        let result = try await web.exchange(code: try answer.code(), clientID: webClientID, redirectURI: callback, nonce: flow.nonce)
        var identity = result.identity.named(Self.name)
        if let user = answer.fields["user"] { Self.addName(from: user, to: &identity) }
        let keep = result.refreshToken.map { KeptProviderToken(clientID: webClientID, token: $0).stored }
        return .identity(identity, keep: keep)
    }

    /// The names of Apple's `user` JSON, when it is that JSON and they are strings within
    /// ``IdentityLimits/name``; anything else is left out (the sign-in does not depend on it).
    static func addName(from user: String, to identity: inout Identity) {
        guard let o = try? JSONValue(parsing: user, limits: JSONLimits(maxBytes: 4096, maxDepth: 4, maxTopLevelMembers: 8)).objectValue,
            let name = o["name"]?.objectValue
        else { return }
        func part(_ key: String) -> String? {
            guard let s = name[key]?.stringValue?.trimmingCharacters(in: .whitespaces), !s.isEmpty, s.count <= IdentityLimits.name,
                !s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { return nil }
            return s
        }
        let given = part("firstName"), family = part("lastName")
        identity.givenName = given ?? identity.givenName
        identity.familyName = family ?? identity.familyName
        let whole = [given, family].compactMap { $0 }.joined(separator: " ")
        if !whole.isEmpty, whole.count <= IdentityLimits.name { identity.name = whole }
    }
}
