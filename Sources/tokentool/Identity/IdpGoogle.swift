import ArgumentParser
import Foundation
import Identity
import JOSE

struct IdpGoogle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "google", abstract: "Verify a Google id_token, or exchange a server auth code (--code) and verify the id_token it returns.")

    @Option(name: .customLong("hosted-domain"), help: "Require this Google Workspace domain (hd).")
    var hostedDomain: String?
    @Option(name: .customLong("jwks"), help: "JWKS URL or file.")
    var jwks = "https://www.googleapis.com/oauth2/v3/certs"
    @Option(name: .customLong("client-secret-file"), help: "File holding the OAuth client secret (for --code).")
    var clientSecretFile: String?
    @Option(name: .customLong("redirect-uri"), help: "The redirect URI the client used (for --code).")
    var redirectURI: String?
    @Option(name: .customLong("token-url"), help: "Google's token endpoint.")
    var tokenURL = "https://oauth2.googleapis.com/token"
    @OptionGroup var signIn: IdpSignInOptions
    @OptionGroup var common: IdpCommon
    @Argument(help: "The id_token, or - for standard input.")
    var token: String?

    func run() async throws {
        try await reportingErrors(json: common.json) {
            guard !signIn.clientIDs.isEmpty else { throw TokenError(.invalidInput, "--client-id is required") }
            var config = GoogleProvider.Configuration(clientIDs: Set(signIn.clientIDs), hostedDomain: hostedDomain)
            config.tokenURL = tokenURL
            config.clock = common.clock
            config.timeout = common.timeout
            if signIn.code != nil {
                guard let clientSecretFile else { throw TokenError(.invalidInput, "--code needs --client-secret-file") }
                guard signIn.clientIDs.count == 1 else { throw TokenError(.invalidInput, "--code takes exactly one --client-id") }
                config.clientSecret = try readSecretFile(clientSecretFile)
            }
            var idToken: String? = nil
            if signIn.code == nil {
                guard let token else { throw TokenError(.invalidInput, "give an id_token or --code") }
                idToken = try readTokenArgument(token)
            }
            try await withTransport { transport in
                let google = try GoogleProvider(
                    configuration: config, keys: keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout),
                    transport: transport)
                if let code = signIn.code {
                    let result = try await google.exchange(code: try readTokenArgument(code), redirectURI: redirectURI, nonce: signIn.nonce)
                    printIdentity(result.identity, exchange: result, json: common.json)
                } else if let idToken {
                    printIdentity(try await google.verify(idToken: idToken, nonce: signIn.nonce), json: common.json)
                }
            }
        }
    }
}
