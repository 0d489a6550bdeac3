import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials   // not all of Foundation: see docs/performance.md, "Start-up"
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import JOSE

/// Writes one line to standard error, unbuffered (Swift 6 rejects the `stderr` global).
func printError(_ message: String) {
    writeAll(2, Array((message + "\n").utf8))
}

/// Writes every byte to a file descriptor, retrying short writes and EINTR; false on failure.
@discardableResult
private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

/// Prints exactly one JSON object on standard output.
func printJSON(_ value: JSONValue) {
    print(value.jsonString)
}

/// A failure as the `--json` contract shapes it: `{"valid":false,"error":{"code":…,"message":…}}`.
func failureJSON(_ error: TokenError) -> JSONValue {
    var e: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
    if let claim = error.claim { e["claim"] = .string(claim) }
    return .object(["valid": false, "error": .object(e)])
}

/// Runs `body`; with `json`, a TokenError becomes the JSON failure object on stdout and the
/// matching exit code (1 rejected, 2 configuration); without, it propagates to `main`.
func reportingErrors(json: Bool, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as TokenError where json {
        throw reportedJSON(error)
    }
}

/// The synchronous form, for commands that do no network or store I/O: they run on the main
/// thread without a task switch (which also keeps them runnable under valgrind).
func reportingErrors(json: Bool, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as TokenError where json {
        throw reportedJSON(error)
    }
}

private func reportedJSON(_ error: TokenError) -> ExitCode {
    printJSON(failureJSON(error))
    return error.code.kind.exitCode
}

extension TokenError.Kind {
    /// The CLI's exit code for a failure of this class: 1 when a token, code or credential was
    /// rejected, 2 when nothing was judged (configuration, infrastructure).
    var exitCode: ExitCode {
        switch self {
        case .rejected: ExitCode(1)
        case .configuration, .infrastructure: ExitCode(2)
        }
    }
}

/// Waits for async work from a synchronous command (only `verify --jwks URL` needs one).
/// The work runs on the cooperative pool while the calling thread, never one of the pool's,
/// waits on a semaphore.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = BlockingOutcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try outcome.result!.get()
}

/// `runBlocking`'s result slot: written once before the semaphore is signalled, read after the wait.
private final class BlockingOutcome<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

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

/// The few reasons worth their own words; strerror for the rest.
private func fileErrorReason(_ code: Int32) -> String { SecretFile.reason(code) }

func readFileText(_ path: String) throws -> String {
    String(decoding: try readFileBytes(path), as: UTF8.self)
}

/// Writes `text` to `path` (replacing a file there); `private` files get mode 0600 before any
/// byte is written, others 0644, whatever the umask.
func writeFile(_ path: String, _ text: String, private isPrivate: Bool) throws {
    let mode: mode_t = isPrivate ? 0o600 : 0o644
    if unlink(path) != 0 && (errno == EISDIR || errno == EPERM) {
        throw TokenError(.invalidInput, "cannot write \(path): \(fileErrorReason(EISDIR))")
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard fd >= 0 else { throw TokenError(.invalidInput, "cannot write \(path): \(fileErrorReason(errno))") }
    defer { close(fd) }
    guard fchmod(fd, mode) == 0, writeAll(fd, Array(text.utf8)) else {
        throw TokenError(.invalidInput, "cannot write \(path): \(fileErrorReason(errno))")
    }
}

// MARK: - Errors of commands that judge no token

/// Runs `body` for a command that rejects no token (`sign`, `keygen`, `jwk`, `jwks`): every
/// TokenError there is a usage or configuration problem, so it prints `error: <code>: <message>`
/// and exits 2 whatever its code (an `--alg` the key does not allow is still the caller's mistake).
func configurationErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as TokenError {
        printError("error: \(error.code.rawValue): \(error.message)")
        throw ExitCode(2)
    }
}

// MARK: - Key files

/// A key and the file it came from, for messages.
struct KeyFromFile {
    var key: JWK
    let source: String
}

/// What a key file held: one key, or a JWK Set (kept whole so its refused keys can be named).
enum KeyFileContents {
    case key(JWK)
    case set(JWKSet)

    var keys: [JWK] {
        switch self {
        case .key(let k): return [k]
        case .set(let s): return s.keys
        }
    }
}

/// Reads a key file: PEM (SPKI, PKCS#1 RSA public key, X.509 certificate, PKCS#8 or traditional
/// private key), DER, a JWK, or a JWK Set. Errors name the file and keep the library's code
/// (`invalid_key` for a bad key, `invalid_input` for an unreadable file).
func readKeyFile(_ path: String) throws -> KeyFileContents {
    if path.hasPrefix("http://") || path.hasPrefix("https://") {
        throw TokenError(.invalidInput, "\(path) is a URL; this command reads key files only. Save it first (curl -fsS -o jwks.json URL) and pass the file")
    }
    let bytes = try readFileBytes(path, limit: 1 << 20)
    func named(_ e: TokenError) -> TokenError { TokenError(e.code, "\(path): \(e.message)", claim: e.claim) }
    do {
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
            throw TokenError(.invalidKey, "the file is empty")
        }
        if first == UInt8(ascii: "{") {
            let text = String(decoding: bytes, as: UTF8.self)
            let value: JSONValue
            do { value = try JSONValue(parsing: text, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 8, maxTopLevelMembers: 64)) }
            catch let e as TokenError { throw TokenError(.invalidKey, "not a valid JWK or JWKS: \(e.message)") }
            if value.objectValue?["keys"] != nil { return .set(try JWKSet(jsonBytes: bytes)) }
            return .key(try JWK(json: text))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN ") { return .key(try JWK(pem: text)) }
        return .key(try JWK(der: bytes))
    } catch let e as TokenError {
        throw named(e)
    }
}

/// Reads a file that must hold exactly one key.
func readSingleKey(_ path: String) throws -> JWK {
    switch try readKeyFile(path) {
    case .key(let k): return k
    case .set(let s):
        guard s.keys.count == 1, s.rejected.isEmpty else {
            throw TokenError(.invalidInput, "\(path) is a JWK Set with \(s.keys.count + s.rejected.count) keys; give a file with one key")
        }
        return s.keys[0]
    }
}

/// Reads an HMAC secret with ``SecretFile/read(path:)`` (one trailing newline dropped).
func readHMACSecret(_ path: String) throws -> JWK {
    let bytes = try SecretFile.read(path: path)
    do { return try JWK(hmacSecret: bytes) }
    catch let e as TokenError { throw TokenError(e.code, "\(path): \(e.message)") }
}

/// Warns on stderr about keys a JWK Set refused (they stay unusable; stdout is untouched).
func warnAboutRefusedKeys(_ set: JWKSet, in path: String) {
    for (kid, error) in set.rejected {
        printError("warning: \(path): key \(kid.map { "\"\($0)\"" } ?? "without kid") refused: \(error.message)")
    }
}

// MARK: - Flag values

/// Parses an `--alg` value. A bad value is the caller's mistake (exit 2), not a rejected token.
func parseAlgorithmFlag(_ name: String) throws -> JWSAlgorithm {
    do { return try JWSAlgorithm.parse(name) }
    catch let e as TokenError { throw TokenError(.invalidInput, "--alg: \(e.message)") }
}

/// Parses a duration: `90` or `90s`, `30m`, `1h`, `2d`, `1w`, or a sum such as `1h30m`.
/// - Throws: `invalid_input` naming the flag.
func parseDuration(_ text: String, flag: String) throws -> Int64 {
    if let plain = Int64(text), plain >= 0 { return plain }
    let bad = TokenError(.invalidInput, "\(flag) \"\(text.prefix(32))\" is not a duration; expected e.g. 90s, 30m, 1h, 2d or 1h30m")
    var total: Int64 = 0
    var digits = ""
    for c in text {
        if c.isASCII && c.isNumber { digits.append(c); continue }
        let unit: Int64
        switch c {
        case "s": unit = 1
        case "m": unit = 60
        case "h": unit = 3600
        case "d": unit = 86_400
        case "w": unit = 604_800
        default: throw bad
        }
        guard let n = Int64(digits), digits.count <= 9 else { throw bad }
        total += n * unit
        digits = ""
    }
    guard digits.isEmpty, !text.isEmpty else { throw bad }
    return total
}

/// The clock for `--now` (Unix seconds), else the system clock.
func tokenClock(now: Int64?) -> TokenClock {
    now.map { TokenClock.fixed(unixSeconds: $0) } ?? .system
}

// MARK: - Human output

/// One line about a NumericDate claim: `2026-11-22T03:12:00Z  expires in 29m`.
func describeTime(claim: String, value: JSONValue, now: Double) -> String {
    guard let seconds = value.numberValue else { return "\(value.jsonString)  (not a NumericDate: a \(value.typeName))" }
    let date = UTCTime.format(seconds)
    let rel = UTCTime.relative(seconds, now: now)
    switch claim {
    case "exp": return "\(date)  " + (seconds <= now ? "expired \(rel)" : "expires \(rel)")
    case "nbf": return "\(date)  " + (seconds <= now ? "valid since \(rel)" : "not valid yet: valid \(rel)")
    case "iat": return "\(date)  " + (seconds <= now ? "issued \(rel)" : "issued in the future (\(rel))")
    default: return "\(date)  \(rel)"
    }
}

/// A claim value on one line: strings bare, everything else as compact JSON.
func describeValue(_ value: JSONValue) -> String {
    if let s = value.stringValue { return s }
    if let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil }) { return a.compactMap(\.stringValue).joined(separator: ", ") }
    return value.jsonString
}
