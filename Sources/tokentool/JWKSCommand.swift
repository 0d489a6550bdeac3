import ArgumentParser
import JOSE

struct JWKSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "jwks", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "jwks is not implemented yet") }
}
