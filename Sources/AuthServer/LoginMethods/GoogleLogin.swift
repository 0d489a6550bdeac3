import Identity

/// `oauth2-google` `{"id_token"}` or `{"authCode"}`: an ID token checked against Google's keys,
/// or a code exchanged with `client_ids[0]` and `client_secret_file` (sending `redirect_uri`
/// exactly as configured, empty included).
struct GoogleLogin: LoginMethod {
    static let name = "oauth2-google"
    static let loginBody: LoginBody = .members([.init("id_token"), .init("authCode")])
    static let amr = [AMRValue(name, "fed")]
    static let capabilities: LoginCapabilities = [.link, .webRedirect]

    struct Config: Sendable {
        var clientIDs: [String]
        var clientSecret: String?
        var redirectURI: String
        var hostedDomain: String?
    }

    let provider: GoogleProvider
    let redirectURI: String
    /// `client_ids[0]`: the client a code is exchanged for.
    let clientID: String

    static func readConfig(_ o: inout ConfigObject, _ context: LoginConfigContext) throws -> Config {
        let ids = try o.nonEmptyStrings("client_ids")
        let s = try context.secret(&o, "client_secret_file").map { String(decoding: $0, as: UTF8.self) }
        let redirect = try o.string("redirect_uri") ?? ""
        let hd = try o.string("hosted_domain")
        return Config(clientIDs: ids, clientSecret: s, redirectURI: redirect, hostedDomain: hd)
    }

    init(config: Config, environment: LoginEnvironment) throws {
        let urls = environment.server.providerURLs
        var gc = GoogleProvider.Configuration(clientIDs: Set(config.clientIDs), hostedDomain: config.hostedDomain, clientSecret: config.clientSecret)
        gc.jwksURL = urls.googleJWKS
        gc.tokenURL = urls.google + "/token"
        gc.timeout = environment.providerTimeout
        provider = try GoogleProvider(configuration: gc, transport: environment.transport)
        redirectURI = config.redirectURI
        clientID = config.clientIDs[0]
    }

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        if let code = try request.body.optionalString("authCode") {
            let result = try await provider.exchange(code: code, clientID: clientID, redirectURI: redirectURI)
            return .identity(result.identity.named(Self.name), keep: nil)
        }
        return .identity(try await provider.verify(idToken: try request.body.string("id_token")).named(Self.name), keep: nil)
    }
}
