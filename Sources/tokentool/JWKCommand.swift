import ArgumentParser
import JOSE

struct JWKCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "jwk", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "jwk is not implemented yet") }
}
