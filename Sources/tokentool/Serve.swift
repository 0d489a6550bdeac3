#if TOKENTOOL_FULL
    import ArgumentParser
    import AuthServer
    import Foundation
    import JOSE

    /// `tokentool serve`: the sign-in server (docs/server.md).
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Run the sign-in server (App Services client protocol and OAuth 2.0 endpoints).",
            discussion:
                "Prints `listening on http://HOST:PORT` once it accepts connections; SIGTERM or SIGINT stops it gracefully. A bad config exits 2 naming the file and the member."
        )

        @Option(name: .long, help: ArgumentHelp("The server's JSON config file.", valueName: "FILE"))
        var config: String

        @Option(
            name: .long,
            help: ArgumentHelp("Where to listen (or $TOKENTOOL_LISTEN); port 0 = any free port. Default 127.0.0.1:8080.", valueName: "HOST:PORT"))
        var listen: String?

        /// `--store`, `--store-file`: over the config's `store` (as `$TOKENTOOL_STORE_FILE` and `$TOKENTOOL_STORE` are).
        @OptionGroup var store: StoreLocationOptions

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            var serverConfig = try ServerConfig.load(path: config, environment: environment)
            // `load` applied $TOKENTOOL_STORE (relative to the config's folder); the flags and
            // $TOKENTOOL_STORE_FILE win over it.
            if let location = try store.given(environment: environment) { serverConfig.store = location }
            let (host, port) = try Self.parseListen(listen ?? environment["TOKENTOOL_LISTEN"] ?? "127.0.0.1:8080")
            let server: AuthServer
            do { server = try await AuthServer.open(config: serverConfig) } catch let e as TokenError where !e.code.rejectsToken {
                throw TokenError(e.code, "\(config): \(e.message)")
            }
            if let created = server.createdMasterKeyFile {
                printError("created a master key in \(created) (mode 0600): keep it with the store, it seals the signing keys")
            }
            let loaded = serverConfig
            try await server.run(host: host, port: port) { host, port in
                if let warning = loaded.publicURLWarning(listeningPort: port) { printError(warning) }
                // One write(2), no stdio buffer: the line reaches a pipe or file at once.
                FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
            }
        }

        /// `HOST:PORT` (`[::1]:PORT` for IPv6).
        static func parseListen(_ text: String) throws -> (String, Int) {
            do { return try ListenAddress.parse(text) } catch let e as TokenError { throw TokenError(e.code, "--listen " + e.message) }
        }
    }
#endif
