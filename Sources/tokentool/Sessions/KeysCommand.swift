import ArgumentParser
import JOSE

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "keys is not implemented yet") }
}
