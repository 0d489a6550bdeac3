import Foundation
import JOSE

/// The master key sealing the signing keys at rest (issue 11 item 1): read from
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
        if FileManager.default.fileExists(atPath: path) { return (try read(path), nil) }
        guard !config.isPostgres else { throw TokenError(.invalidConfiguration, "master_key_file: \(path) does not exist") }
        try create(path)
        return (try read(path), path)
    }

    /// 32 raw bytes, 64 hex digits or 43 base64url characters; refused when group or others may read it.
    static func read(_ path: String) throws -> [UInt8] {
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw TokenError(.invalidConfiguration, "master_key_file: \(path) is readable by group or others (chmod 600 it)")
        }
        let bytes = try SecretFile.read(path, what: "master_key_file")
        if bytes.count == 32 { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.utf8.count == 64, let hex = hexBytes(text) { return hex }
        if let decoded = try? Base64URL.decode(text, what: "master key"), decoded.count == 32 { return decoded }
        throw TokenError(.invalidConfiguration, "master_key_file: \(path) must hold 32 bytes (raw, 64 hex digits or base64url)")
    }

    /// Writes 32 random bytes as hex to a new file of mode 0600 (never over an existing one).
    static func create(_ path: String) throws {
        var g = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &g) }
        let text = key.map { String(format: "%02x", $0) }.joined() + "\n"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TokenError(.invalidConfiguration, "master_key_file: cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, text.utf8.count) }
        guard written == text.utf8.count else { throw TokenError(.invalidConfiguration, "master_key_file: cannot write \(path)") }
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var it = text.utf8.makeIterator()
        while let hi = it.next(), let lo = it.next() {
            guard let h = hexValue(hi), let l = hexValue(lo) else { return nil }
            out.append(h << 4 | l)
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
