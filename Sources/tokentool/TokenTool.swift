import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import JOSE

@main
struct TokenTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokentool",
        abstract: "Decode, verify and sign JWTs; manage keys, provider sign-ins and token pairs.",
        discussion: "Exit codes: 0 success or token valid, 1 token/code/credential rejected, 2 usage or configuration error.",
        subcommands: subcommandList)

    static var subcommandList: [any ParsableCommand.Type] {
        var list: [any ParsableCommand.Type] = [Decode.self, Verify.self, Sign.self, Keygen.self, JWKCommand.self, JWKSCommand.self, Bench.self]
        #if TOKENTOOL_FULL
            list += [Idp.self, TokenCommand.self, UserCommand.self, KeysCommand.self, Serve.self]
        #endif
        return list
    }

    /// Exit codes are part of the contract (docs/cli.md, docs/errors.md): 0 ok, 1 rejected, 2 usage or configuration.
    /// ArgumentParser would exit 64 on usage errors, hence this override.
    static func main() async {
        do {
            // Plain `verify` invocations skip ArgumentParser's start-up (VerifyFastPath.swift).
            if let request = VerifyRequest(fastPath: CommandLine.arguments.dropFirst()) {
                try request.run()
                return
            }
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            exit(withError: code)
        } catch let error as TokenError {
            printError("error: \(error.code.rawValue): \(error.message)")
            exit(withError: error.code.kind.exitCode)
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }  // --help, --version
            printError(fullMessage(for: error))
            // `--json` promises one JSON object on stdout, usage errors included.
            if CommandLine.arguments.dropFirst().contains("--json") {
                var message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "usage error"
                if message.lowercased().hasPrefix("error: ") { message = String(message.dropFirst(7)) }
                printJSON(failureJSON(TokenError(.invalidInput, message.prefix(1).lowercased() + message.dropFirst())))
            }
            exit(withError: ExitCode(2))
        }
    }
}
