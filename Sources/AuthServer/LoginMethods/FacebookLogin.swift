import Identity

/// `oauth2-facebook` `{"accessToken"}`: the token is checked at Graph (`debug_token`, then `me`).
struct FacebookLogin: LoginMethod {
    static let name = "oauth2-facebook"
    static let loginBody: LoginBody = .members([.init("accessToken")])
    static let amr = [AMRValue(name, "fed")]
    static let capabilities: LoginCapabilities = [.link, .webRedirect]

    struct Config: Sendable {
        var appID: String
        var appSecret: String
    }

    let provider: FacebookProvider

    static func readConfig(_ o: inout ConfigObject, _ context: LoginConfigContext) throws -> Config {
        let appID = try o.requiredString("app_id")
        guard let s = try context.secret(&o, "app_secret_file") else { throw o.error("app_secret_file", "required member is missing") }
        return Config(appID: appID, appSecret: String(decoding: s, as: UTF8.self))
    }

    init(config: Config, environment: LoginEnvironment) throws {
        var fc = FacebookProvider.Configuration(appID: config.appID, appSecret: config.appSecret)
        fc.graphURL = environment.server.providerURLs.facebookGraph
        fc.timeout = environment.providerTimeout
        provider = try FacebookProvider(configuration: fc, transport: environment.transport)
    }

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        .identity(try await provider.verify(accessToken: try request.body.string("accessToken")).named(Self.name), keep: nil)
    }
}
