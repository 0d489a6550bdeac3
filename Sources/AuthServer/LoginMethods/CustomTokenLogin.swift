import Identity
import JOSE

/// `custom-token` `{"token"}`: a JWT of the app's own issuer, checked with its `jwks` (a URL or a
/// file) or `secret_file` (HMAC); `metadata` maps profile fields to claim paths. The identity is
/// (provider, issuer, `sub`).
struct CustomTokenLogin: LoginMethod {
    static let name = "custom-token"
    static let loginBody: LoginBody = .members([.init("token", note: "the JWT")])
    static let amr = [AMRValue(name, "fed")]
    static let capabilities: LoginCapabilities = [.link]

    struct Config: Sendable {
        /// A JWKS URL, or `nil` when ``jwksFile`` or ``hmacSecret`` is set.
        var jwksURL: String?
        var jwksFile: String?
        var hmacSecret: [UInt8]?
        var issuer: String?
        var audience: [String]
        /// Profile field → claim path (`"name": "user_data.name"`).
        var metadata: [(field: String, path: String)]
    }

    /// Profile fields that `metadata` may fill, and the identity's field each fills.
    static let profileFields: [String: IdentityField] = [
        "name": .name, "email": .email, "picture_url": .picture, "first_name": .givenName, "last_name": .familyName,
    ]

    let provider: CustomJWTProvider

    static func readConfig(_ o: inout ConfigObject, _ context: LoginConfigContext) throws -> Config {
        var jwksURL: String?
        var jwksFile: String?
        if let jwks = try o.string("jwks") {
            if jwks.hasPrefix("http://") || jwks.hasPrefix("https://") { jwksURL = jwks } else { jwksFile = context.server.resolve(jwks) }
        }
        let hmac = try context.secret(&o, "secret_file")
        guard (jwksURL != nil || jwksFile != nil) != (hmac != nil) else {
            throw o.error("jwks", "give exactly one of jwks and secret_file")
        }
        let issuer = try o.string("issuer")
        let audience = try o.strings("audience") ?? [context.appID]
        var metadata: [(String, String)] = []
        if var m = try o.object("metadata") {
            for field in m.memberNames {
                guard profileFields[field] != nil else {
                    throw m.error(field, "unknown member (one of \(profileFields.keys.sorted().joined(separator: ", ")))")
                }
                guard let path = try m.string(field), !path.isEmpty else { throw m.error(field, "must be a claim path") }
                metadata.append((field, path))
            }
            try m.finish()
        }
        return Config(jwksURL: jwksURL, jwksFile: jwksFile, hmacSecret: hmac, issuer: issuer, audience: audience, metadata: metadata)
    }

    init(config: Config, environment: LoginEnvironment) throws {
        var pc = CustomJWTProvider.Configuration(name: Self.name, issuers: Set(config.issuer.map { [$0] } ?? []), audiences: Set(config.audience))
        for (field, path) in config.metadata { if let f = Self.profileFields[field] { pc.mapping[f] = try ClaimPath(path) } }
        let keys: KeySource
        if let secret = config.hmacSecret {
            keys = .keys(try JWKSet(keys: [JWK(hmacSecret: secret)]))
        } else {
            keys = try KeySource.urlOrFile(
                config.jwksURL ?? config.jwksFile ?? "", transport: environment.transport, policy: .init(timeout: environment.providerTimeout))
        }
        provider = try CustomJWTProvider(configuration: pc, keys: keys)
    }

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        .identity(try await provider.verify(token: try request.body.string("token")).named(Self.name), keep: nil)
    }
}
