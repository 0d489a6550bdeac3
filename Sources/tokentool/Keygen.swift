import ArgumentParser
import JOSE

struct Keygen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keygen", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "keygen is not implemented yet") }
}
