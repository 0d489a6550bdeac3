import Foundation
public import JOSE
public import Testing
@_spi(Testing) import SessionStorePostgres
@_spi(Testing) import SessionStoreSQLite
public import Sessions

/// The stores the conformance suite runs against.
public enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres
    public var testDescription: String { rawValue }

    /// SQLite always; PostgreSQL when its server binaries are installed, or when `CI` is set
    /// (then a missing PostgreSQL fails the run with a clear message instead of skipping).
    public static var available: [StoreKind] {
        if ThrowawayPostgres.binDirectory() != nil || ProcessInfo.processInfo.environment["CI"] != nil { return [.sqlite, .postgres] }
        FileHandle.standardError.write(
            Data("note: PostgreSQL server binaries not found; the PostgreSQL store tests are skipped (set CI=1 to fail instead)\n".utf8))
        return [.sqlite]
    }
}

/// A store under test and the means to set up fixtures on it.
public struct TestStore: Sendable {
    public let kind: StoreKind
    public let store: any SessionStore
    /// The `--store` argument naming the same database (for the CLI tests).
    public let location: String
    public let reopen: @Sendable (_ migratingTo: Int?) async throws -> any SessionStore
    public let executeRaw: @Sendable (String) async throws -> Void
}

public enum Harness {
    /// Runs `body` on `test`, closing the store afterwards whether `body` succeeds or throws.
    private static func running<T>(_ body: (TestStore) async throws -> T, on test: TestStore) async throws -> T {
        do {
            let result = try await body(test)
            try? await test.store.close()
            return result
        } catch {
            try? await test.store.close()
            throw error
        }
    }

    /// A fresh, empty store of `kind`, migrated to `version` (latest by default); closed afterwards.
    public static func withStore<T>(
        _ kind: StoreKind, migratingTo version: Int? = nil,
        _ body: (TestStore) async throws -> T
    ) async throws -> T {
        switch kind {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-tests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let path = dir.appendingPathComponent("sessions.sqlite").path
            let store = try await SQLiteSessionStore.open(path: path, migratingTo: version)
            let test = TestStore(
                kind: kind, store: store, location: path,
                reopen: { v in try await SQLiteSessionStore.open(path: path, migratingTo: v) },
                executeRaw: { sql in try await store.executeRaw(sql) })
            return try await running(body, on: test)
        case .postgres:
            let server = try await ThrowawayPostgres.shared.server()
            let url = try await server.createDatabase()
            // 120 s, not the default 30: two cores under AddressSanitizer beside hundreds of tests once
            // held a transaction (one of 60 queued on one advisory lock) past 30 s. The store's own
            // timeouts are tested with their own values (FaultTests).
            let location = try PostgresSessionStore.Location(url: url + "?query_timeout=120")
            let store = try await PostgresSessionStore.open(location: location, migratingTo: version)
            let test = TestStore(
                kind: kind, store: store, location: url,
                reopen: { v in try await PostgresSessionStore.open(location: location, migratingTo: v) },
                executeRaw: { sql in try await store.executeRaw(sql) })
            return try await running(body, on: test)
        }
    }
}

/// A clock the tests move by hand.
public final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Int64

    public init(_ start: Int64 = 1_900_000_000) { seconds = start }
    public var now: Int64 { lock.withLock { seconds } }
    public func advance(_ by: Int64) { lock.withLock { seconds += by } }
    public var tokenClock: TokenClock { TokenClock { [self] in Date(timeIntervalSince1970: TimeInterval(now)) } }
}

extension SessionConfiguration {
    public static func test(_ clock: TestClock, grace: Int64 = 10) -> SessionConfiguration {
        var c = SessionConfiguration(issuer: "https://auth.test", audience: "https://api.test", defaultClientID: "ios-app")
        c.clock = clock.tokenClock
        c.reuseGraceInterval = grace
        return c
    }
}

/// Runs a command. Its pipes are created close-on-exec, so that no other child started at the
/// same time (a PostgreSQL server, above all) inherits them and keeps them open; they are
/// drained on threads of their own, never on the cooperative pool.
@discardableResult
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    stdin: String? = nil
) async throws -> (status: Int32, stdout: String, stderr: String) {
    func cloexecPipe() throws -> (read: FileHandle, write: FileHandle) {
        // A socket pair rather than pipe(2): SOCK_CLOEXEC sets close-on-exec atomically.
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw HarnessError("socketpair failed: errno \(errno)")
        }
        return (FileHandle(fileDescriptor: fds[0], closeOnDealloc: true), FileHandle(fileDescriptor: fds[1], closeOnDealloc: true))
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = try cloexecPipe(), err = try cloexecPipe(), input = try cloexecPipe()
    process.standardOutput = out.write
    process.standardError = err.write
    process.standardInput = input.read
    let outData = drain(out.read), errData = drain(err.read)
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { p in
            p.waitUntilExit()  // at once; drops the run-loop source through which the Process retains itself
            continuation.resume(returning: p.terminationStatus)
        }
        do {
            try process.run()
        } catch {
            process.terminationHandler = nil
            try? out.write.close()
            try? err.write.close()
            continuation.resume(throwing: error)
            return
        }
        // Our copies of the child's ends: closed, so that EOF arrives when the child exits.
        try? out.write.close()
        try? err.write.close()
        try? input.read.close()
        if let stdin { input.write.write(Data(stdin.utf8)) }
        try? input.write.close()
    }
    return (status, String(decoding: await outData.value, as: UTF8.self), String(decoding: await errData.value, as: UTF8.self))
}

/// Reads a pipe to its end on a thread of its own.
private func drain(_ handle: FileHandle) -> Task<Data, Never> {
    Task {
        await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            let thread = Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }
            thread.start()
        }
    }
}
