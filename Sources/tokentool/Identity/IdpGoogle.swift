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
    @Option(name: .customLong("token-url"), help: "Google's token endpoint.")
    var tokenURL = "https://oauth2.googleapis.com/token"
    @OptionGroup var signIn: IdpSignInOptions
    @OptionGroup var common: IdpCommon

    func run() async throws {
        try await reportingErrors(json: common.json) {
            var config = GoogleProvider.Configuration(clientIDs: try signIn.acceptedClientIDs(), hostedDomain: hostedDomain)
            config.tokenURL = tokenURL
            config.clock = common.clock
            config.timeout = common.timeout
            if signIn.code != nil {
                guard let clientSecretFile else { throw TokenError(.invalidInput, "--code needs --client-secret-file") }
                try signIn.requireOneClient(for: "--code")
                config.clientSecret = try readSecretFile(clientSecretFile)
            }
            let idToken = try signIn.idToken(unless: signIn.code != nil, alternatives: " or --code")
            try await withTransport { transport in
                let google = try GoogleProvider(
                    configuration: config, keys: keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout),
                    transport: transport)
                try await signIn.signIn(with: google, idToken: idToken, json: common.json)
            }
        }
    }
}
