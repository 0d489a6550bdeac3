import ArgumentParser
import Foundation
import Identity
import JOSE

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
                let facebook = try FacebookProvider(
                    configuration: config,
                    limitedLoginKeys: keySource(jwks, transport: transport, clock: common.clock, timeout: common.timeout),
                    transport: transport)
                let identity =
                    limitedLogin
                    ? try await facebook.verify(limitedLoginToken: input, nonce: nonce)
                    : try await facebook.verify(accessToken: input)
                printIdentity(identity, json: common.json)
            }
        }
    }
}
