import Identity
import JOSE

/// `oauth2-apple` `{"id_token"}` or `{"authCode"}`, with an optional raw `"nonce"`: an ID token
/// checked against Apple's keys, or a code exchanged with the client-secret JWT for
/// `client_ids[0]`, whose refresh token is kept so that deleting the user revokes it at Apple.
struct AppleLogin: LoginMethod {
    static let name = "oauth2-apple"
    static let loginBody: LoginBody = .members([.init("id_token"), .init("authCode"), .init("nonce", note: "the raw nonce")])
    static let amr = [AMRValue(name, "fed")]
    static let capabilities: LoginCapabilities = [.link, .webRedirect]

    struct Config: Sendable {
        var clientIDs: [String]
        var teamID: String?
        var keyID: String?
        /// The PEM of the `.p8` key.
        var privateKeyPEM: String?
        /// `web_client_id`: the Services ID of the web sign-in (default `client_ids[0]`).
        var webClientID: String?
    }

    let provider: AppleProvider
    /// `client_ids[0]`: the client a code is exchanged for (and a kept token was issued to).
    let clientID: String
    /// The web sign-in's client (`web_client_id`): its id_tokens must name it alone as `aud`.
    /// `nil` without a client-secret key (the web flow's code exchange needs one).
    let web: AppleProvider?
    let webClientID: String

    static func readConfig(_ o: inout ConfigObject, _ context: LoginConfigContext) throws -> Config {
        let ids = try o.nonEmptyStrings("client_ids")
        let team = try o.string("team_id")
        let key = try o.string("key_id")
        let pem = try context.secret(&o, "private_key_file").map { String(decoding: $0, as: UTF8.self) }
        guard (team == nil && key == nil && pem == nil) || (team != nil && key != nil && pem != nil) else {
            throw o.error("team_id", "team_id, key_id and private_key_file go together")
        }
        let web = try o.string("web_client_id")
        if let web {
            guard !web.isEmpty else { throw o.error("web_client_id", "must be a non-empty string") }
            guard pem != nil else { throw o.error("web_client_id", "web sign-in needs team_id, key_id and private_key_file (the client secret)") }
        }
        return Config(clientIDs: ids, teamID: team, keyID: key, privateKeyPEM: pem, webClientID: web)
    }

    init(config: Config, environment: LoginEnvironment) throws {
        var key: AppleProvider.ClientSecretKey?
        if let team = config.teamID, let kid = config.keyID, let pem = config.privateKeyPEM {
            key = AppleProvider.ClientSecretKey(
                teamID: team, keyID: kid,
                privateKey: try KeyFile.single(KeyFile.parse(Array(pem.utf8), source: "private_key_file"), source: "private_key_file"))
        }
        let apple = environment.server.providerURLs.apple
        var ac = AppleProvider.Configuration(clientIDs: Set(config.clientIDs), clientSecretKey: key)
        ac.jwksURL = apple + "/auth/keys"
        ac.tokenURL = apple + "/auth/token"
        ac.revokeURL = apple + "/auth/revoke"
        ac.timeout = environment.providerTimeout
        // One key source for both clients: Apple's keys are fetched and cached once.
        let keys = try KeySource.remote(
            RemoteJWKS(url: ac.jwksURL, transport: environment.transport, clock: ac.clock, policy: .init(timeout: ac.timeout)))
        provider = try AppleProvider(configuration: ac, keys: keys, transport: environment.transport)
        clientID = config.clientIDs[0]
        webClientID = config.webClientID ?? config.clientIDs[0]
        var wc = ac
        wc.clientIDs = [webClientID]
        web = key == nil ? nil : try AppleProvider(configuration: wc, keys: keys, transport: environment.transport)
    }

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        let nonce = try request.body.optionalString("nonce", maxBytes: 512)
        if let code = try request.body.optionalString("authCode") {
            let result = try await provider.exchange(code: code, clientID: clientID, nonce: nonce)
            let keep = result.refreshToken.map { KeptProviderToken(clientID: clientID, token: $0).stored }
            return .identity(result.identity.named(Self.name), keep: keep)
        }
        return .identity(try await provider.verify(idToken: try request.body.string("id_token"), nonce: nonce).named(Self.name), keep: nil)
    }
}
