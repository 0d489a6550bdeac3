public import Foundation

/// The one harness for tests that run the BUILT `tokentool` (and independent tools: openssl,
/// python3, bash): stdout, stderr and the exit status of a process. The binary is the one built
/// beside the running test bundle (`<scratch path>/debug/tokentool`, which `swift build
/// --build-tests` builds), so the AddressSanitizer build in .build-asan tests its own tokentool.
///
/// Output goes to files, not pipes: a child that outlives the process (a PostgreSQL server
/// started by `pg_ctl`) cannot hold a pipe open, and a large output cannot fill one. Async tests
/// call the same runner through ``detached(_:)``, which keeps the waiting off the cooperative pool.
public enum CLI {
    /// The package's root directory.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The tokentool built beside the running test bundle.
    public static let binary: URL = {
        let bundle = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: bundle).deletingLastPathComponent().appendingPathComponent("tokentool")
    }()

    /// What a process did.
    public struct Result: Sendable, CustomStringConvertible {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        /// stdout parsed by Foundation (not by JOSE) as one JSON object.
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
        /// `error.code` of a `--json` failure object.
        public var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
        public var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// The binary is missing: the test needs `swift build` first.
    public struct NotBuilt: Error, CustomStringConvertible {
        public let description: String
    }

    /// A harness failure: a process that did not start, answer or stop in time.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Runs `tokentool args…` in `dir`, with `stdin` as standard input (empty when nil) and
    /// `environment` merged over the test's own (`nil` values remove a variable).
    public static func tokentool(
        _ args: [String], stdin: String? = nil, in dir: URL? = nil,
        environment: [String: String?] = [:]
    ) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw NotBuilt(description: "\(binary.path) is missing: build it first (swift build)")
        }
        return try run(binary.path, args, stdin: stdin, in: dir, environment: environment)
    }

    /// Runs a bash script (openssl, python3, the docs' examples), tokentool on the PATH.
    public static func sh(_ script: String, in dir: URL, stdin: String? = nil, environment: [String: String?] = [:]) throws -> Result {
        try run("/bin/bash", ["-c", script], stdin: stdin, in: dir, environment: environment)
    }

    /// Runs any executable; PATH starts with the directory of the built tokentool, TZ is UTC.
    public static func run(
        _ executable: String, _ args: [String], stdin: String? = nil, in dir: URL? = nil,
        environment: [String: String?] = [:]
    ) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tt-io-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out"), errURL = scratch.appendingPathComponent("err"),
            inURL = scratch.appendingPathComponent("in")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((stdin ?? "").utf8))
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL), input = try FileHandle(forReadingFrom: inURL)
        defer { try? out.close(); try? err.close(); try? input.close() }

        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        if let dir { p.currentDirectoryURL = dir }
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = binary.deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["TZ"] = "UTC"
        for (name, value) in environment { env[name] = value }
        p.environment = env
        try p.run()
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus,
            stdout: String(decoding: try readAll(outURL), as: UTF8.self),
            stderr: String(decoding: try readAll(errURL), as: UTF8.self))
    }

    /// Runs `body` (a ``run(_:_:stdin:in:environment:)`` and its wait) on a thread of its own, for async tests.
    public static func detached<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result(catching: body)) }.start()
        }
    }
}

/// A file's bytes through FileHandle. (Foundation's `Data(contentsOf:)` leaks its read buffer on
/// Linux for files it cannot size up front, which LeakSanitizer in `make check-memory` reports.)
public func readAll(_ url: URL) throws -> Data {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    return try handle.readToEnd() ?? Data()
}
