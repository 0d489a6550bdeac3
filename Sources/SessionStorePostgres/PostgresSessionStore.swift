import Foundation
import Identity
import JOSE
import PostgresNIO
public import Sessions
import Synchronization

/// The session store for several server instances sharing one PostgreSQL database.
///
/// Rotation relies on row locks: a transaction locks the session row (`SELECT … FOR UPDATE`)
/// before the conditional update of the refresh token, so concurrent refreshes of one token,
/// from any instance, queue on that row and exactly one of them spends it. Transactions run at
/// READ COMMITTED; deadlocks and serialization failures are retried.
///
/// ```swift
/// let store = try await PostgresSessionStore.open(url: "postgres://app@127.0.0.1:5432/auth")
/// ```
public final class PostgresSessionStore: SessionStore {
    /// Where and how to connect, from a `postgres://` URL.
    public struct Location: Sendable, Hashable {
        public var host: String
        public var port: Int
        /// A directory holding the server's Unix socket, instead of TCP (`?host=/run/postgresql`).
        public var socketDirectory: String?
        public var username: String
        public var password: String?
        public var database: String
        /// `disable`, `prefer` or `require`. Without `sslmode` in the URL: `require` (TLS with the
        /// server's certificate verified), except to a loopback address or a Unix socket (`disable`).
        public var sslMode: String
        /// How long a request waits for a connection (`connect_timeout`, in seconds, 1 to 60;
        /// default 5) before it checks that the database answers at all, and fails with
        /// `store_unavailable` when it does not: a database that is down answers 503 in bounded
        /// time, not after the pool's own minute-long retrying. Also the time allowed to connect.
        public var connectTimeout: Duration
        /// How long a transaction may hold its connection (`query_timeout`, in seconds, 1 to 300;
        /// default 30): past it the connection is closed, which fails the transaction with
        /// `store_unavailable` (a database that went away mid-query can leave a query unanswered).
        public var queryTimeout: Duration

        /// Parses `postgres://user:password@host:port/database?sslmode=disable&host=/socket/dir&connect_timeout=5`.
        /// - Throws: `invalid_configuration` for another scheme or an unknown `sslmode`.
        public init(url: String) throws {
            guard let c = URLComponents(string: url), c.scheme == "postgres" || c.scheme == "postgresql" else {
                throw TokenError(.invalidConfiguration, "a PostgreSQL store is a postgres://user@host:port/database URL")
            }
            username = c.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
            password = c.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
            host = c.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
            port = c.port ?? 5432
            let path = c.path.hasPrefix("/") ? String(c.path.dropFirst()) : c.path
            database = path.isEmpty ? username : (path.removingPercentEncoding ?? path)
            let items = c.queryItems ?? []
            socketDirectory = items.first { $0.name == "host" }?.value
            let local = socketDirectory != nil || ProviderURL.isLoopback(host)  // traffic that never leaves the machine
            sslMode = items.first { $0.name == "sslmode" }?.value ?? (local ? "disable" : "require")
            guard ["disable", "prefer", "require"].contains(sslMode) else {
                throw TokenError(.invalidConfiguration, "sslmode must be disable, prefer or require, got \"\(sslMode.prefix(16))\"")
            }
            let timeout = items.first { $0.name == "connect_timeout" }?.value ?? "5"
            guard let seconds = Int(timeout), (1...60).contains(seconds) else {
                throw TokenError(.invalidConfiguration, "connect_timeout must be 1 to 60 seconds, got \"\(timeout.prefix(16))\"")
            }
            connectTimeout = .seconds(seconds)
            let query = items.first { $0.name == "query_timeout" }?.value ?? "30"
            guard let q = Int(query), (1...300).contains(q) else {
                throw TokenError(.invalidConfiguration, "query_timeout must be 1 to 300 seconds, got \"\(query.prefix(16))\"")
            }
            queryTimeout = .seconds(q)
        }

        /// The URL without the password, for messages.
        public var redacted: String {
            "postgres://\(username)@\(socketDirectory ?? "\(host):\(port)")/\(database)"
        }

        var connectionConfiguration: PostgresConnection.Configuration {
            if let dir = socketDirectory {
                return .init(unixSocketPath: "\(dir)/.s.PGSQL.\(port)", username: username, password: password, database: database)
            }
            return .init(host: host, port: port, username: username, password: password, database: database, tls: connectionTLS)
        }

        var clientConfiguration: PostgresClient.Configuration {
            var config: PostgresClient.Configuration
            if let dir = socketDirectory {
                config = .init(unixSocketPath: "\(dir)/.s.PGSQL.\(port)", username: username, password: password, database: database)
            } else {
                config = .init(host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
            }
            config.options.maximumConnections = 20
            config.options.connectTimeout = connectTimeout
            return config
        }

        private var connectionTLS: PostgresConnection.Configuration.TLS {
            switch sslMode {
            case "require": return .require(try! NIOSSLContext(configuration: .makeClientConfiguration()))
            case "prefer": return .prefer(try! NIOSSLContext(configuration: .makeClientConfiguration()))
            default: return .disable
            }
        }

        private var clientTLS: PostgresClient.Configuration.TLS {
            switch sslMode {
            case "require": return .require(.makeClientConfiguration())
            case "prefer": return .prefer(.makeClientConfiguration())
            default: return .disable
            }
        }
    }

    public let location: Location
    let client: PostgresClient
    private let runTask: Task<Void, Never>
    let logger: Logger
    /// Set when a request found no connection within `connectTimeout` (the database is down),
    /// cleared by the next one that gets one: while set, requests wait only `shortWait`.
    private let unreachable = Atomic<Bool>(false)
    static let shortWait = Duration.milliseconds(500)

    private init(location: Location, logger: Logger) {
        self.location = location
        self.logger = logger
        client = PostgresClient(configuration: location.clientConfiguration, backgroundLogger: logger)
        let client = self.client
        runTask = Task { await client.run() }
    }

    deinit { runTask.cancel() }

    /// Connects, and migrates the database to the newest schema (in one transaction, under an
    /// advisory lock, so that several instances starting at once migrate it once).
    /// - Throws: `invalid_configuration` for a bad URL or a database that is not a session store;
    ///   `store_unavailable` when the server cannot be reached; `store_too_new`.
    public static func open(url: String) async throws -> PostgresSessionStore {
        try await open(location: Location(url: url), migratingTo: nil)
    }

    /// Opens the store and migrates it only up to `version` (tests of migrations).
    @_spi(Testing) public static func open(location: Location, migratingTo version: Int?) async throws -> PostgresSessionStore {
        var logger = Logger(label: "tokentool.postgres")
        logger.logLevel = .critical
        // A direct connection first: it fails fast when the server is down, where a pool would wait.
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration, id: 1, logger: logger)
        } catch {
            throw TokenError(.storeUnavailable, "cannot connect to \(location.redacted): \(Self.describe(error))")
        }
        do {
            try await SchemaMigrator.migrate(
                PostgresTransaction(connection: connection, location: location, logger: logger),
                steps: PostgresMigrations.all, upTo: version)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        return PostgresSessionStore(location: location, logger: logger)
    }

    public func schemaVersion() async throws -> Int {
        try await withConnection { conn in
            let rows = try await Self.run(
                conn, "SELECT COALESCE(MAX(version), 0)::BIGINT FROM schema_migrations", location: self.location, logger: self.logger)
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }

    public func close() async throws {
        runTask.cancel()
        _ = await runTask.value
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await withConnection { conn in
                    _ = try await Self.run(conn, "BEGIN", location: self.location, logger: self.logger)
                    do {
                        let value = try await body(PostgresTransaction(connection: conn, location: self.location, logger: self.logger))
                        _ = try await Self.run(conn, "COMMIT", location: self.location, logger: self.logger)
                        return value
                    } catch {
                        _ = try? await Self.run(conn, "ROLLBACK", location: self.location, logger: self.logger)
                        throw error is RetryableConflict ? error : BodyFailure(error: error)
                    }
                }
            } catch let failure as BodyFailure {
                throw failure.error  // the body's own error, unchanged
            } catch is RetryableConflict where attempt < 8 {
                try? await Task.sleep(nanoseconds: UInt64(attempt) * 2_000_000)
            } catch is RetryableConflict {
                throw TokenError(.storeUnavailable, "transaction kept conflicting with concurrent ones (\(attempt) attempts)")
            }
        }
    }

    /// Each statement of `body` on its own (autocommit), on one pooled connection.
    public func read<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T {
        do {
            return try await withConnection { conn in
                do {
                    return try await body(PostgresTransaction(connection: conn, location: self.location, logger: self.logger))
                } catch {
                    throw BodyFailure(error: error)
                }
            }
        } catch let failure as BodyFailure {
            throw failure.error  // the body's own error, unchanged
        }
    }

    /// One statement on its own, no `BEGIN`: the function of migration step 8 locks the key,
    /// counts and records, and the key's lock ends with the statement, with no round trip while
    /// it is held (`tokentool_count_throttle_event`, schema step 8).
    public func countThrottleEvent(key: String, since: Int64, limit: Int, at time: Int64, expiresAt: Int64, record: Bool) async throws -> (
        count: Int, oldest: Int64?
    ) {
        let query: PostgresQuery = """
            SELECT n, oldest FROM tokentool_count_throttle_event(\(key), \(since), \(Int64(limit)), \(time), \(expiresAt), \(record))
            """
        return try await withConnection { conn in
            let rows = try await Self.run(conn, query, location: self.location, logger: self.logger)
            guard let row = rows.first else { throw TokenError(.storeUnavailable, "\(self.location.redacted): no throttle count") }
            let (count, oldest) = try row.decode((Int64, Int64?).self)
            return (Int(count), oldest)
        }
    }

    /// Runs SQL outside any transaction (test fixtures).
    @_spi(Testing) public func executeRaw(_ sql: String) async throws {
        try await withConnection { conn in _ = try await Self.run(conn, PostgresQuery(unsafeSQL: sql), location: self.location, logger: self.logger) }
    }

    // MARK: - internals

    /// Runs `body` on a pooled connection. Waiting for the connection is bounded while the
    /// database is down: the pool alone would queue requests while it retries connecting (a
    /// minute before it gives up), so a request that has no connection after `connectTimeout`
    /// (after `shortWait` while the database is known to be down) makes a connection of its own
    /// to see whether the database answers: when it does not, the request fails with
    /// `store_unavailable`; when it does, the pool is only busy and the request keeps waiting. Once `body` has its
    /// connection it runs to its end, unless it holds it past `queryTimeout`: then the connection
    /// is closed, which fails its query (a database that stops answering, a dropped network). The pool keeps reconnecting in the background; the first request that gets a
    /// connection again clears the down state.
    private func withConnection<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let wait = unreachable.load(ordering: .relaxed) ? min(Self.shortWait, location.connectTimeout) : location.connectTimeout
        let lease = LeaseRace()
        let client = self.client, location = self.location, logger = self.logger
        do {
            // The group ends before this returns: `body` does not outlive the call.
            let value = try await withoutActuallyEscaping(body) { body in
                try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask {
                        try await client.withConnection { conn in
                            guard lease.advance(to: .leased(conn)) else { throw LeaseTimedOut() }
                            return try await body(conn)
                        }
                    }
                    group.addTask {
                        // Sleeps are cut short once the body is done (the group is cancelled).
                        try? await Task.sleep(for: wait)
                        // Still waiting: a busy pool keeps the request waiting; a database that
                        // cannot be reached fails it.
                        while lease.state.isWaiting, !Task.isCancelled, await Self.reachable(location, logger: logger) {
                            try? await Task.sleep(for: location.connectTimeout)
                        }
                        if lease.advance(to: .timedOut) { throw LeaseTimedOut() }
                        // The body has its connection: past `queryTimeout`, close it under the body.
                        try? await Task.sleep(for: location.queryTimeout)
                        if !Task.isCancelled, case .leased(let conn) = lease.state { try? await conn.close() }
                        return nil
                    }
                    defer { group.cancelAll() }
                    while let result = try await group.next() {
                        if let result { return result }
                    }
                    throw LeaseTimedOut()  // unreachable: the connection child returns a value or throws
                }
            }
            unreachable.store(false, ordering: .relaxed)
            return value
        } catch let e as TokenError {
            unreachable.store(false, ordering: .relaxed)  // it got a connection: the body's error
            throw e
        } catch let e as BodyFailure {
            unreachable.store(false, ordering: .relaxed)
            throw e
        } catch is RetryableConflict {
            throw RetryableConflict()
        } catch is LeaseTimedOut where lease.state.isTimedOut {
            unreachable.store(true, ordering: .relaxed)
            throw TokenError(.storeUnavailable, "\(location.redacted): no connection within \(wait)")
        } catch {
            throw TokenError(.storeUnavailable, "\(location.redacted): \(Self.describe(error))")
        }
    }

    /// Whether a new connection to the database can be made now (within `connectTimeout`).
    static func reachable(_ location: Location, logger: Logger) async -> Bool {
        guard let probe = try? await PostgresConnection.connect(configuration: location.connectionConfiguration, id: 0, logger: logger) else {
            return false
        }
        try? await probe.close()
        return true
    }

    /// Runs one query and collects its rows; PostgreSQL errors become `store_unavailable`,
    /// except deadlocks and serialization failures, which the transaction retries.
    static func run(_ conn: PostgresConnection, _ query: PostgresQuery, location: Location, logger: Logger) async throws -> [PostgresRow] {
        // postgres-nio (1.33.2) never completes a query written to a connection that has just
        // closed: refuse one that is already known closed.
        guard !conn.isClosed else { throw TokenError(.storeUnavailable, "\(location.redacted): the connection is closed") }
        do {
            return try await conn.query(query, logger: logger).collect()
        } catch let e as PSQLError {
            if let state = e.serverInfo?[.sqlState], state == "40001" || state == "40P01" { throw RetryableConflict() }
            throw TokenError(.storeUnavailable, "\(location.redacted): \(describe(e))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] { return "\(message) (\(e.serverInfo?[.sqlState] ?? "?"))" }
            return e.underlying.map { "\(e.code): \($0)" } ?? "\(e.code)"
        }
        return String(describing: error)
    }
}

/// The migration runner's PostgreSQL half, on a transaction's connection: one instance
/// migrates; the others wait on the advisory lock, then find nothing left to do.
extension PostgresTransaction: MigrationDriver {
    func begin() async throws {
        _ = try await q("BEGIN")
        _ = try await q("SELECT pg_advisory_xact_lock(7305196518)")
        _ = try await q("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)")
    }

    func appliedSteps() async throws -> [(version: Int, name: String)] {
        try await q("SELECT version, name FROM schema_migrations ORDER BY version").map { row in
            let (v, n) = try row.decode((Int32, String).self)
            return (Int(v), n)
        }
    }

    func execute(_ statement: String) async throws { _ = try await q(PostgresQuery(unsafeSQL: statement)) }

    func record(_ step: SchemaMigration) async throws {
        _ = try await q(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(Int32(step.version)), \(step.name), EXTRACT(EPOCH FROM now())::BIGINT)"
        )
    }

    func commit() async throws { _ = try await q("COMMIT") }
    func rollback() async { _ = try? await q("ROLLBACK") }
}

struct RetryableConflict: Error {}

/// A request gave up waiting for a pooled connection.
struct LeaseTimedOut: Error {}

/// Who won the race between getting a connection and the wait running out.
final class LeaseRace: Sendable {
    enum State: Sendable {
        case waiting, leased(PostgresConnection), timedOut
        var isWaiting: Bool { if case .waiting = self { true } else { false } }
        var isTimedOut: Bool { if case .timedOut = self { true } else { false } }
    }
    private let current = Mutex(State.waiting)

    var state: State { current.withLock { $0 } }

    /// Moves from `waiting` to `next`; false when the other side won first.
    func advance(to next: State) -> Bool {
        current.withLock { state in
            guard state.isWaiting else { return false }
            state = next
            return true
        }
    }
}

/// Carries an error thrown by a transaction's body past the driver's own error mapping.
struct BodyFailure: Error {
    let error: any Error
}
