#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import JOSE

/// Reads a token or code argument: `-` reads standard input and `@FILE` a file, so that secrets
/// stay off command lines (one trailing newline is dropped, nothing else is trimmed, so stray
/// white space is still reported). No JWT, refresh token or code starts with `@`.
func readTokenArgument(_ argument: String) throws -> String {
    guard argument == "-" || argument.hasPrefix("@") else { return argument }
    let path = argument == "-" ? "-" : String(argument.dropFirst())
    var text = String(decoding: try SecretFile.readBytes(path: path, limit: 4 << 20), as: UTF8.self)
    if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
    if text.isEmpty { throw TokenError(.malformed, "\(path == "-" ? "standard input" : path) held no token") }
    return text
}

/// Reads a file as bytes, or throws `invalid_input` naming it. `-` reads standard input.
func readFileBytes(_ path: String, limit: Int = 4 << 20) throws -> [UInt8] {
    try SecretFile.readBytes(path: path, limit: limit)
}

func readFileText(_ path: String) throws -> String {
    String(decoding: try readFileBytes(path), as: UTF8.self)
}

/// Writes `text` to `path` (replacing a file there); `private` files get mode 0600 before any
/// byte is written, others 0644, whatever the umask.
func writeFile(_ path: String, _ text: String, private isPrivate: Bool) throws {
    let mode: mode_t = isPrivate ? 0o600 : 0o644
    if unlink(path) != 0 && (errno == EISDIR || errno == EPERM) {
        throw TokenError(.invalidInput, "cannot write \(path): \(SecretFile.reason(EISDIR))")
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw TokenError(.invalidInput, "cannot write \(path): \(SecretFile.reason(errno))") }
    defer { close(fd) }
    guard fchmod(fd, mode) == 0, writeAll(fd, Array(text.utf8)) else {
        throw TokenError(.invalidInput, "cannot write \(path): \(SecretFile.reason(errno))")
    }
}
