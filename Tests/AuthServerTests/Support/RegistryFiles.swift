import CLIHarness
import Foundation

/// The registries whose members are one file each (grants, second factors, login methods): the
/// type names those files declare, read from the folder, for a test to compare with the registry.
enum RegistryFiles {
    /// The names, without `.swift`, of the files of `Sources/AuthServer/<folder>` ending in
    /// `suffix` (`Grant.swift`), but the protocol's own file `protocolFile`.
    static func types(in folder: String, suffix: String, protocolFile: String? = nil) throws -> [String] {
        let path = CLI.packageRoot.appendingPathComponent("Sources/AuthServer/" + folder).path
        return try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(suffix) && $0 != protocolFile }
            .map { String($0.dropLast(".swift".count)) }.sorted()
    }
}
