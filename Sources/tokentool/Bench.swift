import ArgumentParser
import JOSE

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "bench is not implemented yet") }
}
