import ArgumentParser
import JOSE

struct Idp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "idp", abstract: "(not yet implemented)")
    func run() async throws { throw TokenError(.internalError, "idp is not implemented yet") }
}
