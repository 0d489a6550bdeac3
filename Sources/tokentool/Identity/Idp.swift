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
    @OptionGroup var time: ClockOption
    @Option(name: .customLong("timeout"), help: "Seconds allowed for each provider request.")
    var timeout: Double = 5
    /// `{"valid":true,"identity":{…}}` or `{"valid":false,"error":{…}}`.
    @OptionGroup var output: JSONOption

    var clock: TokenClock { time.clock }
    var json: Bool { output.json }
}

/// Flags of the providers whose clients sign in with an id_token or an authorization code (Google, Apple).
struct IdpSignInOptions: ParsableArguments {
    @Option(
        name: .customLong("client-id"),
        help: "An accepted client id: an OAuth client id, bundle id or services id (repeatable: iOS, Android and web clients).")
    var clientIDs: [String] = []
    @Option(name: .customLong("nonce"), help: "The raw nonce of this sign-in (compared exactly or through SHA-256).")
    var nonce: String?
    @Option(name: .customLong("code"), help: "An authorization code to exchange: - reads standard input, @FILE a file (or the code itself).")
    var code: String?
    @Option(name: .customLong("redirect-uri"), help: "The redirect URI the client used (for --code; web sign-ins).")
    var redirectURI: String?
    @Argument(help: "The id_token, or - for standard input.")
    var token: String?

    /// The accepted client ids. - Throws: `invalid_input` when there is none.
    func acceptedClientIDs() throws -> Set<String> {
        guard !clientIDs.isEmpty else { throw TokenError(.invalidInput, "--client-id is required") }
        return Set(clientIDs)
    }

    /// Checks that a call to the provider's token endpoint (`flags`, e.g. "--code") names one client.
    func requireOneClient(for flags: String) throws {
        guard clientIDs.count == 1 else { throw TokenError(.invalidInput, "\(flags): give exactly one --client-id") }
    }

    /// The id_token argument, read as ``readTokenArgument(_:)`` does; `nil` when `calling` (the
    /// provider's token endpoint is called instead).
    /// - Throws: `invalid_input` naming `alternatives` when neither is given.
    func idToken(unless calling: Bool, alternatives: String) throws -> String? {
        guard !calling else { return nil }
        guard let token else { throw TokenError(.invalidInput, "give an id_token\(alternatives)") }
        return try readTokenArgument(token)
    }
}

/// The providers whose clients sign in with an id_token or an authorization code.
protocol CodeSignInProvider {
    func verify(idToken: String, nonce: String?) async throws -> Identity
    func exchange(code: String, clientID: String?, redirectURI: String?, nonce: String?) async throws -> CodeExchangeResult
}

extension GoogleProvider: CodeSignInProvider {}
extension AppleProvider: CodeSignInProvider {}

extension IdpSignInOptions {
    /// Exchanges `--code` (verifying the id_token the provider returns), else verifies `idToken`,
    /// and prints the identity.
    func signIn(with provider: some CodeSignInProvider, idToken: String?, json: Bool) async throws {
        if let code {
            let result = try await provider.exchange(code: try readTokenArgument(code), clientID: nil, redirectURI: redirectURI, nonce: nonce)
            printIdentity(result.identity, exchange: result, json: json)
        } else if let idToken {
            printIdentity(try await provider.verify(idToken: idToken, nonce: nonce), json: json)
        }
    }
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
