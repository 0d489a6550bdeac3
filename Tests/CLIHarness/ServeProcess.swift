public import Foundation
import Synchronization

/// A `tokentool serve` process that runs while the test talks to it (``CLI/binary``; a command
/// that runs to its end goes through ``CLI/tokentool(_:stdin:in:environment:)``), its output in files.
public final class ServeProcess: @unchecked Sendable {
    public let process = Process()
    public let stdoutPath: String
    public let stderrPath: String
    private let exited = Mutex<Int32?>(nil)

    /// Starts `tokentool serve ARGS` with output into `directory`.
    public init(_ arguments: [String], directory: String, environment: [String: String] = [:], name: String = "serve") throws {
        guard FileManager.default.isExecutableFile(atPath: CLI.binary.path) else {
            throw CLI.NotBuilt(description: "\(CLI.binary.path) is missing: build it first (swift build)")
        }
        stdoutPath = directory + "/\(name).out"
        stderrPath = directory + "/\(name).err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = CLI.binary
        process.arguments = ["serve"] + arguments
        var env = ProcessInfo.processInfo.environment
        env["TOKENTOOL_STORE"] = nil
        env["TOKENTOOL_STORE_FILE"] = nil
        env["TOKENTOOL_MASTER_KEY_FILE"] = nil
        env["TOKENTOOL_LISTEN"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { [weak self] p in
            p.waitUntilExit()  // at once; drops the run-loop source through which the Process retains itself
            self?.exited.withLock { $0 = p.terminationStatus }
        }
        try process.run()
    }

    public var stdout: String { Self.read(stdoutPath) }
    public var stderr: String { Self.read(stderrPath) }

    /// The file as it is now (the server is still writing it).
    private static func read(_ path: String) -> String { readGrowingFile(path) }

    /// The URL of the `listening on` line, waiting up to `seconds` (an ASan server on a loaded 2-core
    /// machine once took over 60 s); `nil` when the process exited first.
    public func listening(within seconds: Double = 180) async throws -> String? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return String(line.dropFirst("listening on ".count))
            }
            if exited.withLock({ $0 }) != nil { return nil }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CLI.Failure("no `listening on` line within \(seconds) s; stderr: \(stderr)")
    }

    /// Waits for the exit status (up to `seconds`; then kills it and fails).
    public func exitStatus(within seconds: Double = 30) async throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let status = exited.withLock({ $0 }) { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(process.processIdentifier, SIGKILL)
        throw CLI.Failure("tokentool serve did not exit within \(seconds) s")
    }

    /// SIGTERM, then the exit status.
    public func stop() async throws -> Int32 {
        if exited.withLock({ $0 }) == nil { kill(process.processIdentifier, SIGTERM) }
        return try await exitStatus()
    }
}

/// A file another process may still be appending to (server output, delivered mail), as it is
/// now; "" when it does not exist. Through FileHandle: `String(contentsOfFile:)` leaks its read
/// buffer (FoundationEssentials' readBytesFromFile, seen by LeakSanitizer) when the file grows
/// while it reads.
public func readGrowingFile(_ path: String) -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? handle.close() }
    return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
}
