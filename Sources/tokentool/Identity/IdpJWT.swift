import ArgumentParser
import Foundation
import Identity
import JOSE

struct IdpJWT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt", abstract: "Verify a JWT from any issuer and map its claims to an identity.")

    @Option(name: .customLong("jwks"), help: "JWKS URL or file.")
    var jwks: String?
    /// `--key FILE` (repeatable) or `--secret-file FILE`, instead of --jwks.
    @OptionGroup var key: KeyOptions
    @Option(name: .customLong("iss"), help: "Accepted issuer (repeatable).")
    var issuers: [String] = []
    @Option(name: .customLong("aud"), help: "Accepted audience (repeatable).")
    var audiences: [String] = []
    @Option(name: .customLong("alg"), help: "Accepted algorithm (repeatable; narrows what the keys allow).")
    var algorithms: [String] = []
    @Option(
        name: .customLong("map"),
        help: "FIELD=CLAIM.PATH, e.g. name=user_data.name (fields: subject, email, email_verified, name, given_name, family_name, picture, locale).")
    var mappings: [String] = []
    @Option(name: .customLong("require"), help: "An identity field that must be present (repeatable).")
    var required: [String] = []
    @Option(name: .customLong("provider"), help: "The provider name written to the identity.")
    var provider = "jwt"
    @OptionGroup var leeway: LeewayOption
    @OptionGroup var common: IdpCommon
    @Argument(help: "The token, or - for standard input.")
    var token: String

    func run() async throws {
        try await reportingErrors(json: common.json) {
            let local = !key.keys.isEmpty || key.secretFile != nil
            guard (jwks == nil) == local else { throw TokenError(.invalidInput, "give --jwks, or --key and --secret-file files") }
            var algs: Set<JWSAlgorithm>? = nil
            if !algorithms.isEmpty { algs = Set(try algorithms.map { try JWSAlgorithm.parse($0) }) }
            var config = CustomJWTProvider.Configuration(name: provider, issuers: Set(issuers), audiences: Set(audiences), algorithms: algs)
            for m in mappings {
                let parts = m.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let field = IdentityField(rawValue: parts[0]) else {
                    throw TokenError(
                        .invalidInput,
                        "--map \(m): expected FIELD=CLAIM.PATH with FIELD one of \(IdentityField.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                config.mapping[field] = try ClaimPath(parts[1])
            }
            for r in required {
                guard let field = IdentityField(rawValue: r) else { throw TokenError(.invalidInput, "--require \(r) is not an identity field") }
                config.requiredFields.insert(field)
            }
            config.leeway = TimeInterval(try leeway.seconds())
            config.clock = common.clock
            let input = try readTokenArgument(token)
            try await withTransport { transport in
                let keys: KeySource
                if let jwks {
                    keys = try keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout)
                } else {
                    // A private key's public half is all verification needs.
                    var local = try key.keys.flatMap { try KeyFile.read(path: $0).keys.map { $0.keyType == .oct ? $0 : $0.publicKey } }
                    if let secret = key.secretFile { local.append(try KeyFile.readSecret(path: secret)) }
                    keys = .keys(try JWKSet(keys: local))
                }
                let verifier = try CustomJWTProvider(configuration: config, keys: keys)
                printIdentity(try await verifier.verify(token: input), json: common.json)
            }
        }
    }
}
