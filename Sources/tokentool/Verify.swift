import ArgumentParser
import JOSE

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "verify", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "verify is not implemented yet") }
}
