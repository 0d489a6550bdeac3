#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import JOSE

/// The store's files hold signing keys (unsealed without a master key) and refresh-token
/// hashes: they are the owner's alone. SQLite gives `-wal` and `-shm` the mode of the main file.
enum SQLiteFileMode {
    /// Creates the store file 0600 when it does not exist; refuses an existing store file, `-wal`
    /// or `-shm` that group or others may open, with the command that fixes it.
    static func prepare(path: String) throws {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            let changed = fchmod(fd, 0o600) == 0
            close(fd)
            guard changed else { throw TokenError(.storeUnavailable, "cannot create sqlite store \(path): \(SecretFile.reason(errno))") }
        } else if errno != EEXIST {
            throw TokenError(.storeUnavailable, "cannot create sqlite store \(path): \(SecretFile.reason(errno))")
        }
        let files = [path, path + "-wal", path + "-shm"]
        for file in files {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            guard info.st_mode & 0o077 == 0 else {
                let mode = String(info.st_mode & 0o777, radix: 8)
                throw TokenError(
                    .invalidConfiguration,
                    "sqlite store file \(file) is open to group or others (mode \(mode)) and holds signing keys; run chmod 600 \(files.joined(separator: " "))"
                )
            }
        }
    }
}
