#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads secrets (HMAC keys, client secrets, master keys) from files, the one way every command does.
///
/// ```swift
/// let secret = try SecretFile.read(path: "hs256.key")   // "-" reads standard input
/// let key = try JWK(hmacSecret: secret)
/// ```
public enum SecretFile {
    /// The largest secret ``read(path:)`` accepts.
    public static let maxBytes = 64 * 1024

    /// Reads a secret: the file's bytes exactly, except one trailing newline (`\n` or `\r\n`,
    /// as `echo` and `openssl rand -hex` add), which is dropped. `-` reads standard input.
    /// With `ownerOnly`, a file that group or others may open is refused (secrets at rest).
    /// - Throws: `invalid_input` when the file cannot be read or exceeds ``maxBytes``;
    ///   `invalid_key` when nothing is left, or (`ownerOnly`) when others may open it.
    public static func read(path: String, ownerOnly: Bool = false) throws -> [UInt8] {
        var bytes = try readBytes(path: path, limit: maxBytes, ownerOnly: ownerOnly)
        if bytes.last == 0x0A { bytes.removeLast(); if bytes.last == 0x0D { bytes.removeLast() } }
        guard !bytes.isEmpty else { throw TokenError(.invalidKey, "\(describe(path)) holds no secret (it is empty)") }
        return bytes
    }

    /// Reads at most `limit` bytes of a file as they are (`-`: standard input).
    ///
    /// - Parameters:
    ///   - ownerOnly: refuse a file that group or others may read or write (keys at rest).
    ///   - regularFileOnly: refuse anything but a regular file (a FIFO, a device such as
    ///     `/dev/zero`, a directory) before reading a byte, and never wait to open it.
    /// - Throws: `invalid_input` when the file cannot be read, is larger than `limit`, or is not a
    ///   regular file when `regularFileOnly`; `invalid_key` (saying `chmod 600 <path>`) when
    ///   `ownerOnly` and the mode lets others in.
    public static func readBytes(path: String, limit: Int, ownerOnly: Bool = false, regularFileOnly: Bool = false) throws -> [UInt8] {
        if path == "-" {
            guard let bytes = readAll(0, limit: limit + 1) else {
                throw TokenError(.invalidInput, "cannot read standard input: \(reason(errno))")
            }
            guard bytes.count <= limit else { throw TokenError(.invalidInput, "standard input is larger than \(limit) bytes") }
            return bytes
        }
        // O_NONBLOCK: opening a FIFO for reading must not wait for a writer (no effect on a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | (regularFileOnly ? O_NONBLOCK : 0))
        guard fd >= 0 else { throw TokenError(.invalidInput, "cannot read \(path): \(reason(errno))") }
        defer { close(fd) }
        if ownerOnly || regularFileOnly {
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw TokenError(.invalidInput, "cannot read \(path): \(reason(errno))") }
            if regularFileOnly && info.st_mode & S_IFMT != S_IFREG {
                throw TokenError(.invalidInput, "\(path) is not a regular file (\(kind(info.st_mode)))")
            }
            if ownerOnly && info.st_mode & 0o077 != 0 {
                throw TokenError(
                    .invalidKey, "\(path) is open to group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 \(path)")
            }
        }
        guard let bytes = readAll(fd, limit: limit + 1) else {
            throw TokenError(.invalidInput, "cannot read \(path): \(reason(errno))")
        }
        guard bytes.count <= limit else { throw TokenError(.invalidInput, "\(path) is larger than \(limit) bytes") }
        return bytes
    }

    /// The words for a file error: the few reasons worth their own, strerror for the rest.
    public static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES: "permission denied"
        case EISDIR: "is a directory"
        default: String(cString: strerror(code)).lowercased()
        }
    }

    /// What a file that is not a regular one is, in words.
    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a plain file"
        }
    }

    private static func describe(_ path: String) -> String { path == "-" ? "standard input" : path }

    /// Reads a file descriptor to its end, or up to `limit` bytes (nil: a read failed).
    private static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.count < limit {
            let want = min(chunk.count, limit - bytes.count)
            let n = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, want) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return bytes
    }
}

#if canImport(Glibc)
    private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Glibc.read(fd, buffer, count) }
#elseif canImport(Darwin)
    private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Darwin.read(fd, buffer, count) }
#endif
