import ArgumentParser
import JOSE

struct Decode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decode", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "decode is not implemented yet") }
}
