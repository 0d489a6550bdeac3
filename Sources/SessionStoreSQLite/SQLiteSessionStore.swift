import Foundation
import JOSE
import Logging
import SQLiteNIO
public import Sessions

/// The embedded session store: one SQLite file in WAL mode, created on first use.
///
/// One connection per process; transactions run one at a time (`BEGIN IMMEDIATE`), so a
/// rotation's conditional update has exactly one winner. Other processes opening the same
/// file wait up to ``busyTimeoutMilliseconds`` for the write lock.
///
/// ```swift
/// let store = try await SQLiteSessionStore.open(path: "tokentool.sqlite")
/// defer { Task { try await store.close() } }
/// ```
public struct SQLiteSessionStore: SessionStore {
    /// How long a transaction waits for another process's write lock.
    public static let busyTimeoutMilliseconds = 10_000

    let owner: ConnectionOwner
    var connection: SQLiteConnection { owner.connection }
    let gate: AsyncGate
    /// The file path.
    public let path: String

    /// Opens (creating if needed, mode 0600) the store at `path` and migrates it to the newest schema.
    /// - Throws: `store_unavailable` when the file cannot be opened or written; `store_too_new`
    ///   when its schema is newer than this code; `invalid_configuration` when it is not a session
    ///   store, or when it (or its `-wal`/`-shm`) is open to group or others (the message says how to fix it).
    public static func open(path: String) async throws -> SQLiteSessionStore {
        try await open(path: path, migratingTo: nil)
    }

    /// Opens the store and migrates it only up to `version` (tests of migrations).
    @_spi(Testing) public static func open(path: String, migratingTo version: Int?) async throws -> SQLiteSessionStore {
        try SQLiteFileMode.prepare(path: path)
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: Logger(label: "tokentool.sqlite"))
        } catch {
            throw TokenError(.storeUnavailable, "cannot open sqlite store \(path): \(Self.describe(error))")
        }
        let store = SQLiteSessionStore(owner: ConnectionOwner(connection), gate: AsyncGate(), path: path)
        do {
            try await store.raw("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
            let mode = try await store.rows("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.string
            guard mode?.lowercased() == "wal" else {
                throw TokenError(.storeUnavailable, "sqlite store \(path) cannot use WAL (journal_mode is \(mode ?? "unknown"))")
            }
            try await store.raw("PRAGMA synchronous = NORMAL")
            try await store.raw("PRAGMA foreign_keys = ON")
            try await store.migrate(to: version)
        } catch {
            try? await connection.close()
            throw error
        }
        return store
    }

    public func schemaVersion() async throws -> Int {
        try await withGate {
            let rows = try await rows("SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations")
            return Int(rows.first?.column("v")?.integer ?? 0)
        }
    }

    public func close() async throws {
        try await withGate { try? await connection.close() }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T {
        try await withGate {
            try await raw("BEGIN IMMEDIATE")
            do {
                let value = try await body(SQLiteTransaction(store: self))
                try await raw("COMMIT")
                return value
            } catch {
                try? await raw("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs SQL statements outside any transaction (test fixtures).
    @_spi(Testing) public func executeRaw(_ sql: String) async throws {
        try await withGate { try await raw(sql) }
    }

    // MARK: - internals

    private func withGate<T>(_ body: () async throws -> T) async throws -> T {
        await gate.acquire()
        do {
            let v = try await body()
            await gate.release()
            return v
        } catch {
            await gate.release()
            throw error
        }
    }

    private func migrate(to target: Int?) async throws {
        try await withGate { try await SchemaMigrator.migrate(SQLiteMigrationDriver(store: self), steps: SQLiteMigrations.all, upTo: target) }
    }

    func raw(_ sql: String) async throws {
        try await rows(sql)
    }

    @discardableResult
    func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        do {
            return try await connection.query(sql, binds)
        } catch {
            throw TokenError(.storeUnavailable, "sqlite store \(path): \(Self.describe(error))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? SQLiteError { return e.message }
        return String(describing: error)
    }
}

/// The migration runner's SQLite half: `BEGIN IMMEDIATE` takes the write lock for the whole migration.
struct SQLiteMigrationDriver: MigrationDriver {
    let store: SQLiteSessionStore

    func begin() async throws {
        try await store.raw("BEGIN IMMEDIATE")
        try await store.raw(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)")
    }

    func appliedSteps() async throws -> [(version: Int, name: String)] {
        try await store.rows("SELECT version, name FROM schema_migrations ORDER BY version").map {
            (version: Int($0.column("version")?.integer ?? 0), name: $0.column("name")?.string ?? "")
        }
    }

    func execute(_ statement: String) async throws { try await store.raw(statement) }

    func record(_ step: SchemaMigration) async throws {
        try await store.rows(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, CAST(strftime('%s','now') AS INTEGER))",
            [.integer(SQLiteInt64(step.version)), .text(step.name)])
    }

    func commit() async throws { try await store.raw("COMMIT") }
    func rollback() async { try? await store.raw("ROLLBACK") }
}

/// Owns the connection: closes it when the last copy of the store goes away without `close()`
/// (the connection must be closed before it is released).
final class ConnectionOwner: Sendable {
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
    deinit {
        if !connection.isClosed { _ = connection.close() }  // the pending close keeps the connection alive until done
    }
}
