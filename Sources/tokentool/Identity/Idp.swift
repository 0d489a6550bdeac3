import ArgumentParser
import Foundation
import Identity
import JOSE

/// `tokentool idp google|apple|facebook|jwt`: verify what a client got from an identity provider
/// and print the normalized identity.
struct Idp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idp",
        abstract: "Verify a provider sign-in (Google, Apple, Facebook, custom JWT) and print the normalized identity.",
        discussion: "Defaults are the providers' real endpoints; every URL flag accepts https, or http on a loopback host.",
        subcommands: [IdpGoogle.self, IdpApple.self, IdpFacebook.self, IdpJWT.self])
}

/// Flags every `idp` subcommand shares.
struct IdpCommon: ParsableArguments {
    @Option(name: .customLong("now"), help: "Verify as of this time (Unix seconds) instead of the system clock.")
    var now: Int64?
    @Option(name: .customLong("timeout"), help: "Seconds allowed for each provider request.")
    var timeout: Double = 5
    @Flag(name: .customLong("json"), help: "Print one JSON object: {\"valid\":true,\"identity\":{…}} or {\"valid\":false,\"error\":{…}}.")
    var json = false

    var clock: TokenClock { now.map { TokenClock.fixed(unixSeconds: $0) } ?? .system }
}

/// Runs `body` with a fresh HTTP transport and shuts it down afterwards, whatever happens.
func withTransport<T>(_ body: (AsyncHTTPClientTransport) async throws -> T) async throws -> T {
    let transport = AsyncHTTPClientTransport()
    do {
        let result = try await body(transport)
        try? await transport.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        throw error
    }
}

/// Reads a text secret with ``SecretFile/read(path:)``, as every secret file is read.
func readSecretFile(_ path: String) throws -> String {
    String(decoding: try SecretFile.read(path: path), as: UTF8.self)
}

/// Prints a verified identity (and, after a code exchange, the provider's tokens).
func printIdentity(_ identity: Identity, exchange: CodeExchangeResult? = nil, json: Bool) {
    if json {
        var o: JSONObject = ["valid": true, "identity": .object(identity.jsonObject)]
        if let exchange {
            var t: JSONObject = ["id_token": .string(exchange.idToken)]
            if let a = exchange.accessToken { t["access_token"] = .string(a) }
            if let r = exchange.refreshToken { t["refresh_token"] = .string(r) }
            if let e = exchange.expiresIn { t["expires_in"] = .int(e) }
            o["tokens"] = .object(t)
        }
        printJSON(.object(o))
        return
    }
    print("valid: \(identity.provider) sign-in")
    let rows: [(String, String?)] = [
        ("subject", identity.subject), ("email", identity.email), ("email_verified", String(identity.emailVerified)),
        ("name", identity.name), ("given_name", identity.givenName), ("family_name", identity.familyName),
        ("picture", identity.picture), ("locale", identity.locale),
    ]
    for (k, v) in rows { if let v { print("  \(k): \(v)") } }
    if let exchange {
        if exchange.refreshToken != nil { print("  refresh_token: (returned; use --json to see it)") }
    }
    print("raw claims:")
    print(JSONValue.object(identity.rawClaims).prettyString())
}

func keySource(_ jwks: String, transport: any HTTPTransport, clock: TokenClock, timeout: Double) throws -> KeySource {
    var policy = RemoteJWKS.Policy.default
    policy.timeout = timeout
    return try KeySource.urlOrFile(jwks, transport: transport, clock: clock, policy: policy)
}

struct IdpGoogle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "google", abstract: "Verify a Google id_token, or exchange a server auth code (--code) and verify the id_token it returns.")

    @Option(name: .customLong("client-id"), help: "An accepted OAuth client id (repeat for iOS, Android and web clients).")
    var clientIDs: [String] = []
    @Option(name: .customLong("hosted-domain"), help: "Require this Google Workspace domain (hd).")
    var hostedDomain: String?
    @Option(name: .customLong("jwks"), help: "JWKS URL or file.")
    var jwks = "https://www.googleapis.com/oauth2/v3/certs"
    @Option(name: .customLong("code"), help: "A server auth code to exchange: - reads standard input, @FILE a file (or the code itself).")
    var code: String?
    @Option(name: .customLong("nonce"), help: "The nonce of this sign-in (compared exactly or through SHA-256).")
    var nonce: String?
    @Option(name: .customLong("client-secret-file"), help: "File holding the OAuth client secret (for --code).")
    var clientSecretFile: String?
    @Option(name: .customLong("redirect-uri"), help: "The redirect URI the client used (for --code).")
    var redirectURI: String?
    @Option(name: .customLong("token-url"), help: "Google's token endpoint.")
    var tokenURL = "https://oauth2.googleapis.com/token"
    @OptionGroup var common: IdpCommon
    @Argument(help: "The id_token, or - for standard input.")
    var token: String?

    func run() async throws {
        try await reportingErrors(json: common.json) {
            guard !clientIDs.isEmpty else { throw TokenError(.invalidInput, "--client-id is required") }
            var config = GoogleProvider.Configuration(clientIDs: Set(clientIDs), hostedDomain: hostedDomain)
            config.tokenURL = tokenURL
            config.clock = common.clock
            config.timeout = common.timeout
            if code != nil {
                guard let clientSecretFile else { throw TokenError(.invalidInput, "--code needs --client-secret-file") }
                guard clientIDs.count == 1 else { throw TokenError(.invalidInput, "--code takes exactly one --client-id") }
                config.clientSecret = try readSecretFile(clientSecretFile)
            }
            var idToken: String? = nil
            if code == nil {
                guard let token else { throw TokenError(.invalidInput, "give an id_token or --code") }
                idToken = try readTokenArgument(token)
            }
            try await withTransport { transport in
                let google = try GoogleProvider(configuration: config, keys: keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout),
                                                transport: transport)
                if let code {
                    let result = try await google.exchange(code: try readTokenArgument(code), redirectURI: redirectURI, nonce: nonce)
                    printIdentity(result.identity, exchange: result, json: common.json)
                } else if let idToken {
                    printIdentity(try await google.verify(idToken: idToken, nonce: nonce), json: common.json)
                }
            }
        }
    }
}

struct IdpApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Verify a Sign in with Apple id_token; exchange an authorization code (--code) or revoke a token (--revoke).")

    @Option(name: .customLong("client-id"), help: "An accepted bundle id or services id (repeatable).")
    var clientIDs: [String] = []
    @Option(name: .customLong("nonce"), help: "The raw nonce of this sign-in (compared exactly or through SHA-256).")
    var nonce: String?
    @Option(name: .customLong("jwks"), help: "JWKS URL or file.")
    var jwks = "https://appleid.apple.com/auth/keys"
    @Option(name: .customLong("code"), help: "An authorization code to exchange: - reads standard input, @FILE a file (or the code itself).")
    var code: String?
    @Option(name: .customLong("revoke"), help: "A refresh or access token to revoke (account deletion): - reads standard input, @FILE a file.")
    var revokeToken: String?
    @Option(name: .customLong("token-type-hint"), help: "refresh_token or access_token (for --revoke).")
    var tokenTypeHint = "refresh_token"
    @Option(name: .customLong("team-id"), help: "Apple developer team id (client secret iss).")
    var teamID: String?
    @Option(name: .customLong("key-id"), help: "Sign in with Apple key id (client secret kid).")
    var keyID: String?
    @Option(name: .customLong("private-key-file"), help: "The Sign in with Apple key (.p8 PEM or JWK).")
    var privateKeyFile: String?
    @Option(name: .customLong("redirect-uri"), help: "The redirect URI (web sign-ins).")
    var redirectURI: String?
    @Option(name: .customLong("token-url")) var tokenURL = "https://appleid.apple.com/auth/token"
    @Option(name: .customLong("revoke-url")) var revokeURL = "https://appleid.apple.com/auth/revoke"
    @OptionGroup var common: IdpCommon
    @Argument(help: "The id_token, or - for standard input.")
    var token: String?

    func run() async throws {
        try await reportingErrors(json: common.json) {
            guard !clientIDs.isEmpty else { throw TokenError(.invalidInput, "--client-id is required") }
            var config = AppleProvider.Configuration(clientIDs: Set(clientIDs))
            config.tokenURL = tokenURL
            config.revokeURL = revokeURL
            config.clock = common.clock
            config.timeout = common.timeout
            if code != nil || revokeToken != nil {
                guard let teamID, let keyID, let privateKeyFile else {
                    throw TokenError(.invalidInput, "--code and --revoke need --team-id, --key-id and --private-key-file")
                }
                guard clientIDs.count == 1 else { throw TokenError(.invalidInput, "--code and --revoke take exactly one --client-id") }
                let text = try readFileText(privateKeyFile)
                let key = text.contains("-----BEGIN") ? try JWK(pem: text) : try JWK(json: text)
                config.clientSecretKey = .init(teamID: teamID, keyID: keyID, privateKey: key)
            }
            var idToken: String? = nil
            if code == nil && revokeToken == nil {
                guard let token else { throw TokenError(.invalidInput, "give an id_token, --code or --revoke") }
                idToken = try readTokenArgument(token)
            }
            try await withTransport { transport in
                let apple = try AppleProvider(configuration: config, keys: keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout),
                                              transport: transport)
                if let revokeToken {
                    try await apple.revoke(token: try readTokenArgument(revokeToken), tokenTypeHint: tokenTypeHint)
                    if common.json { printJSON(.object(["revoked": true])) } else { print("revoked") }
                } else if let code {
                    let result = try await apple.exchange(code: try readTokenArgument(code), redirectURI: redirectURI, nonce: nonce)
                    printIdentity(result.identity, exchange: result, json: common.json)
                } else if let idToken {
                    printIdentity(try await apple.verify(idToken: idToken, nonce: nonce), json: common.json)
                }
            }
        }
    }
}

struct IdpFacebook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "facebook",
        abstract: "Verify a Facebook access token (Graph debug_token + /me), or a Limited Login id_token (--limited-login).")

    @Option(name: .customLong("app-id")) var appID: String
    @Option(name: .customLong("app-secret-file"), help: "File holding the app secret.")
    var appSecretFile: String
    @Option(name: .customLong("graph-url"), help: "Graph API base URL, optionally with a version (…/v21.0).")
    var graphURL = "https://graph.facebook.com"
    @Flag(name: .customLong("limited-login"), help: "The argument is a Limited Login id_token (OIDC), checked with Facebook's JWKS.")
    var limitedLogin = false
    @Option(name: .customLong("nonce"), help: "The raw nonce of a Limited Login sign-in.")
    var nonce: String?
    @Option(name: .customLong("jwks"), help: "Limited Login JWKS URL or file.")
    var jwks = "https://limited.facebook.com/.well-known/oauth/openid/jwks/"
    @Flag(name: .customLong("email-verified"), help: "Report Facebook's email as verified.")
    var emailVerified = false
    @OptionGroup var common: IdpCommon
    @Argument(help: "The user access token (or id_token with --limited-login), or - for standard input.")
    var token: String

    func run() async throws {
        try await reportingErrors(json: common.json) {
            var config = FacebookProvider.Configuration(appID: appID, appSecret: try readSecretFile(appSecretFile))
            config.graphURL = graphURL
            config.treatEmailAsVerified = emailVerified
            config.clock = common.clock
            config.timeout = common.timeout
            let input = try readTokenArgument(token)
            try await withTransport { transport in
                let facebook = try FacebookProvider(configuration: config,
                                                    limitedLoginKeys: keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout),
                                                    transport: transport)
                let identity = limitedLogin ? try await facebook.verify(limitedLoginToken: input, nonce: nonce)
                                            : try await facebook.verify(accessToken: input)
                printIdentity(identity, json: common.json)
            }
        }
    }
}

struct IdpJWT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt", abstract: "Verify a JWT from any issuer and map its claims to an identity.")

    @Option(name: .customLong("jwks"), help: "JWKS URL or file.")
    var jwks: String?
    @Option(name: .customLong("secret-file"), help: "HMAC secret file (instead of --jwks).")
    var secretFile: String?
    @Option(name: .customLong("iss"), help: "Accepted issuer (repeatable).")
    var issuers: [String] = []
    @Option(name: .customLong("aud"), help: "Accepted audience (repeatable).")
    var audiences: [String] = []
    @Option(name: .customLong("alg"), help: "Accepted algorithm (repeatable; narrows what the keys allow).")
    var algorithms: [String] = []
    @Option(name: .customLong("map"), help: "FIELD=CLAIM.PATH, e.g. name=user_data.name (fields: subject, email, email_verified, name, given_name, family_name, picture, locale).")
    var mappings: [String] = []
    @Option(name: .customLong("require"), help: "An identity field that must be present (repeatable).")
    var required: [String] = []
    @Option(name: .customLong("provider"), help: "The provider name written to the identity.")
    var provider = "jwt"
    @Option(name: .customLong("leeway"), help: "Seconds of clock skew tolerated.")
    var leeway: Double = 0
    @OptionGroup var common: IdpCommon
    @Argument(help: "The token, or - for standard input.")
    var token: String

    func run() async throws {
        try await reportingErrors(json: common.json) {
            guard (jwks == nil) != (secretFile == nil) else { throw TokenError(.invalidInput, "give exactly one of --jwks and --secret-file") }
            var algs: Set<JWSAlgorithm>? = nil
            if !algorithms.isEmpty { algs = Set(try algorithms.map { try JWSAlgorithm.parse($0) }) }
            var config = CustomJWTProvider.Configuration(name: provider, issuers: Set(issuers), audiences: Set(audiences), algorithms: algs)
            for m in mappings {
                let parts = m.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let field = IdentityField(rawValue: parts[0]) else {
                    throw TokenError(.invalidInput, "--map \(m): expected FIELD=CLAIM.PATH with FIELD one of \(IdentityField.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                config.mapping[field] = try ClaimPath(parts[1])
            }
            for r in required {
                guard let field = IdentityField(rawValue: r) else { throw TokenError(.invalidInput, "--require \(r) is not an identity field") }
                config.requiredFields.insert(field)
            }
            config.leeway = leeway
            config.clock = common.clock
            let input = try readTokenArgument(token)
            try await withTransport { transport in
                let keys: KeySource
                if let secretFile { keys = .keys(try JWKSet(keys: [readHMACSecret(secretFile)])) }
                else { keys = try keySource(jwks!, transport: transport, clock: common.clock, timeout: common.timeout) }
                let verifier = try CustomJWTProvider(configuration: config, keys: keys)
                printIdentity(try await verifier.verify(token: input), json: common.json)
            }
        }
    }
}
