import ArgumentParser
import Foundation
import JOSE

/// `--store` and `--store-file`: where the session store is, for every command that opens one
/// (`token`, `user`, `keys`, `serve`).
///
/// Flags win over the environment and a file over a value: `--store-file`, `--store`,
/// `$TOKENTOOL_STORE_FILE`, then `$TOKENTOOL_STORE`, whose place each command keeps (the others
/// default to ./tokentool.sqlite, `serve` to its config's `store`).
struct StoreLocationOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A SQLite file (created on first use) or a postgres:// URL (or $TOKENTOOL_STORE; a URL with a password belongs in --store-file). Default ./tokentool.sqlite; for serve, the config's store.",
            valueName: "S"))
    var store: String?

    @Option(
        name: .customLong("store-file"),
        help: ArgumentHelp(
            "A file holding the --store value, e.g. a postgres:// URL with its password (or $TOKENTOOL_STORE_FILE); wins over --store.",
            valueName: "FILE"))
    var storeFile: String?

    /// The location the flags or `$TOKENTOOL_STORE_FILE` give (a file's content, one trailing
    /// newline dropped), or `nil`: the caller then reads `$TOKENTOOL_STORE` or its own default.
    /// - Throws: ``JOSE/SecretFile``'s codes for an unreadable store file.
    func given(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let storeFile { return try Self.read(storeFile) }
        if let store { return store }
        return try environment["TOKENTOOL_STORE_FILE"].map(Self.read)
    }

    private static func read(_ path: String) throws -> String {
        String(decoding: try SecretFile.read(path: path), as: UTF8.self)
    }
}
