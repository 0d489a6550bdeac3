import ArgumentParser
import Foundation
import Identity
import JOSE

struct IdpApple: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple",
        abstract: "Verify a Sign in with Apple id_token; exchange an authorization code (--code) or revoke a token (--revoke).")

    @Option(name: .customLong("jwks"), help: "JWKS URL or file.")
    var jwks = "https://appleid.apple.com/auth/keys"
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
    @Option(name: .customLong("token-url")) var tokenURL = "https://appleid.apple.com/auth/token"
    @Option(name: .customLong("revoke-url")) var revokeURL = "https://appleid.apple.com/auth/revoke"
    @OptionGroup var signIn: IdpSignInOptions
    @OptionGroup var common: IdpCommon

    func run() async throws {
        try await reportingErrors(json: common.json) {
            var config = AppleProvider.Configuration(clientIDs: try signIn.acceptedClientIDs())
            config.tokenURL = tokenURL
            config.revokeURL = revokeURL
            config.clock = common.clock
            config.timeout = common.timeout
            if signIn.code != nil || revokeToken != nil {
                guard let teamID, let keyID, let privateKeyFile else {
                    throw TokenError(.invalidInput, "--code and --revoke need --team-id, --key-id and --private-key-file")
                }
                try signIn.requireOneClient(for: "--code and --revoke")
                let key = try KeyFile.readSingle(path: privateKeyFile)
                config.clientSecretKey = .init(teamID: teamID, keyID: keyID, privateKey: key)
            }
            let idToken = try signIn.idToken(unless: signIn.code != nil || revokeToken != nil, alternatives: ", --code or --revoke")
            try await withTransport { transport in
                let apple = try AppleProvider(
                    configuration: config, keys: keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout),
                    transport: transport)
                if let revokeToken {
                    try await apple.revoke(token: try readTokenArgument(revokeToken), tokenTypeHint: tokenTypeHint)
                    if common.json { printJSON(.object(["revoked": true])) } else { print("revoked") }
                } else {
                    try await signIn.signIn(with: apple, idToken: idToken, json: common.json)
                }
            }
        }
    }
}
