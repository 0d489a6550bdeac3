import Foundation
import JOSE
import Sessions

/// The master key sealing the signing keys at rest: read from
/// `master_key_file`; required with PostgreSQL; created (0600) beside a SQLite store on first start.
enum MasterKey {
    /// The key, and the file created when this call made one.
    static func load(config: ServerConfig) throws -> (key: [UInt8], created: String?) {
        let path: String
        if let file = config.masterKeyFile {
            path = file
        } else if config.isPostgres {
            throw TokenError(.invalidConfiguration, "master_key_file: required with a PostgreSQL store (every instance must seal keys alike)")
        } else {
            path = URL(fileURLWithPath: config.store).deletingLastPathComponent().appendingPathComponent("master.key").path
        }
        do {
            if FileManager.default.fileExists(atPath: path) { return (try MasterKeyFile.read(path: path), nil) }
            guard !config.isPostgres else { throw TokenError(.invalidConfiguration, "\(path) does not exist") }
            return (try MasterKeyFile.create(path: path), path)
        } catch let e as TokenError {
            throw TokenError(.invalidConfiguration, "master_key_file: \(e.message)")
        }
    }
}
