#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import JOSE

/// The file holding the master key that seals private signing keys at rest
/// (``SessionConfiguration/masterKey``).
///
/// ```swift
/// let key = try MasterKeyFile.read(path: "/etc/tokentool/master.key")
/// ```
public enum MasterKeyFile {
    /// Reads a master key: 32 raw bytes, or 64 hex digits, or 43 base64url characters (white
    /// space around the text forms ignored).
    /// - Throws: `invalid_key` when the file is open to group or others (the message says
    ///   `chmod 600 <path>`) or holds no 32-byte key; `invalid_input` when it cannot be read.
    public static func read(path: String) throws -> [UInt8] {
        let bytes = try SecretFile.readBytes(path: path, limit: 4096, ownerOnly: true)
        if bytes.count == 32 { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.utf8.count == 64, let decoded = Hex.decode(text) { return decoded }
        if case .success(let decoded) = Base64URL.decode(text.utf8), decoded.count == 32 { return decoded }
        throw TokenError(.invalidKey, "master key file \(path) must hold 32 bytes (raw, 64 hex digits or base64url)")
    }

    /// Creates a new master key file: 32 random bytes, mode 0600 from the start. Never
    /// overwrites: an existing file (or a symbolic link) at `path` is an error.
    /// - Returns: the new key.
    /// - Throws: `invalid_configuration` when the file exists or cannot be written.
    public static func create(path: String) throws -> [UInt8] {
        let key = try SecureRandom.bytes(32)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw TokenError(.invalidConfiguration, "cannot create master key file \(path): \(SecretFile.reason(errno))")
        }
        var written = 0
        while written < key.count {
            let n = key[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            written += n
        }
        let synced = written == key.count && fchmod(fd, 0o600) == 0 && fsync(fd) == 0
        let failure = errno
        close(fd)
        guard synced else {
            unlink(path)
            throw TokenError(.invalidConfiguration, "cannot write master key file \(path): \(SecretFile.reason(failure))")
        }
        return key
    }

}
