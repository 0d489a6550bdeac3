import ArgumentParser
import JOSE

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "token is not implemented yet") }
}
