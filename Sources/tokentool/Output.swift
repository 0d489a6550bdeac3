import ArgumentParser
import Foundation
import JOSE

/// Writes one line to standard error (Swift 6 rejects the `stderr` global).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
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
        printJSON(failureJSON(error))
        throw ExitCode(error.code.rejectsToken ? 1 : 2)
    }
}

/// Reads a token argument: `-` reads standard input (one trailing newline is dropped, nothing
/// else is trimmed, so stray white space is still reported).
func readTokenArgument(_ argument: String) throws -> String {
    guard argument == "-" else { return argument }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    var text = String(decoding: data, as: UTF8.self)
    if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
    if text.isEmpty { throw TokenError(.malformed, "standard input held no token") }
    return text
}

/// Reads a file as bytes, or throws `invalid_input` naming it. `-` reads standard input.
func readFileBytes(_ path: String, limit: Int = 4 << 20) throws -> [UInt8] {
    if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
        throw TokenError(.invalidInput, "cannot read \(path): \(reason)")
    }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
    guard data.count <= limit else { throw TokenError(.invalidInput, "\(path) is larger than \(limit) bytes") }
    return Array(data)
}

func readFileText(_ path: String) throws -> String {
    String(decoding: try readFileBytes(path), as: UTF8.self)
}

/// Writes `text` to `path`; `private` files get mode 0600 before any byte is written.
func writeFile(_ path: String, _ text: String, private isPrivate: Bool) throws {
    let fm = FileManager.default
    if fm.fileExists(atPath: path) { try? fm.removeItem(atPath: path) }
    guard fm.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: isPrivate ? 0o600 : 0o644]),
          let handle = FileHandle(forWritingAtPath: path)
    else { throw TokenError(.invalidInput, "cannot write \(path)") }
    defer { try? handle.close() }
    handle.write(Data(text.utf8))
}
