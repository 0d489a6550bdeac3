import ArgumentParser
import JOSE

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "user", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "user is not implemented yet") }
}
