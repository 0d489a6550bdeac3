import ArgumentParser
import JOSE

struct Sign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sign", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "sign is not implemented yet") }
}
