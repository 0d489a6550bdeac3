import Foundation
import Synchronization

/// A PostgreSQL server of its own for the test run: `initdb` into a temporary directory,
/// `pg_ctl start` on a free loopback port (as the `postgres` OS user when running as root,
/// since the server refuses root), one fresh database per test, stopped and deleted at exit.
/// A watchdog shell stops it too if the test process dies without running its exit handlers.
public actor ThrowawayPostgres {
    public static let shared = ThrowawayPostgres()

    /// A server of its own, apart from the shared one, for a test that stops and starts it.
    public static func dedicated() -> ThrowawayPostgres { ThrowawayPostgres() }

    public struct Server: Sendable {
        public let bin: String
        public let dataDirectory: String
        public let port: Int
        public let asUser: String?
        /// The `postgres` options it was started with (port, socket folder, settings).
        public let options: String

        /// Stops the server (`pg_ctl stop -m MODE`), keeping its data: a database going away under load.
        public func stop(mode: String = "fast") async throws {
            let r = try await ThrowawayPostgres.run(bin + "/pg_ctl", ["-D", dataDirectory, "-m", mode, "-w", "-t", "60", "stop"], as: asUser)
            guard r.status == 0 else { throw HarnessError("pg_ctl stop failed: \(r.stderr)") }
        }

        /// Starts it again on the same data and port.
        public func restart() async throws {
            let log = URL(fileURLWithPath: dataDirectory).deletingLastPathComponent().appendingPathComponent("server.log").path
            let r = try await ThrowawayPostgres.run(
                bin + "/pg_ctl", ["-D", dataDirectory, "-l", log, "-o", options, "-w", "-t", "60", "start"],
                as: asUser, closingInheritedDescriptors: true)
            guard r.status == 0 else { throw HarnessError("pg_ctl start failed: \(r.stderr)") }
        }

        /// Creates an empty database and returns its URL.
        public func createDatabase() async throws -> String {
            let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let r = try await ThrowawayPostgres.run(bin + "/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name], as: nil)
            guard r.status == 0 else { throw HarnessError("createdb failed: \(r.stderr)") }
            return "postgres://postgres@127.0.0.1:\(port)/\(name)"
        }
    }

    private var starting: Task<Server, any Error>?
    /// What stops every server started (run at exit, once).
    private static let stopCommands = Mutex<[String]>([])

    /// The server, started once on first use (every concurrent caller awaits the same start).
    public func server() async throws -> Server {
        if let starting { return try await starting.value }
        let task = Task { try await self.start() }
        starting = task
        return try await task.value
    }

    /// Where `initdb`, `pg_ctl` and `createdb` are: `$TOKENTOOL_PG_BIN`, else the newest
    /// /usr/lib/postgresql/N/bin (Debian), else /usr/local/pgsql/bin or /usr/bin.
    public nonisolated static func binDirectory() -> String? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["TOKENTOOL_PG_BIN"] {  // when set, only there
            return fm.isExecutableFile(atPath: env + "/initdb") && fm.isExecutableFile(atPath: env + "/pg_ctl") ? env : nil
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? fm.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        for v in versions where fm.isExecutableFile(atPath: "\(root)/\(v)/bin/initdb") { return "\(root)/\(v)/bin" }
        for dir in ["/usr/local/pgsql/bin", "/usr/bin"]
        where fm.isExecutableFile(atPath: dir + "/initdb") && fm.isExecutableFile(atPath: dir + "/pg_ctl") { return dir }
        return nil
    }

    private func start() async throws -> Server {
        guard let bin = Self.binDirectory() else {
            throw HarnessError(
                "PostgreSQL is not installed: no initdb under /usr/lib/postgresql/*/bin (install it with `apt-get install postgresql`, or set TOKENTOOL_PG_BIN); the PostgreSQL store tests cannot run"
            )
        }
        let asUser: String? = getuid() == 0 ? "postgres" : nil
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-pg-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        if let asUser {
            let r = try await Self.run("/bin/chown", [asUser, dir], as: nil)
            guard r.status == 0 else { throw HarnessError("cannot give \(dir) to the \(asUser) user (does the user exist?): \(r.stderr)") }
        }
        let data = dir + "/data"
        let initdb = try await Self.run(bin + "/initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], as: asUser)
        guard initdb.status == 0 else { throw HarnessError("initdb failed: \(initdb.stderr)") }

        for _ in 0..<5 {
            let port = try Self.freePort()
            let options =
                "-p \(port) -k \(dir) -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            let r = try await Self.run(
                bin + "/pg_ctl", ["-D", data, "-l", dir + "/server.log", "-o", options, "-w", "-t", "60", "start"],
                as: asUser, closingInheritedDescriptors: true)
            if r.status == 0 {
                let stop =
                    (asUser.map { "/usr/sbin/runuser -u \($0) -- " } ?? "")
                    + "\(bin)/pg_ctl -D \(data) -m immediate -w stop >/dev/null 2>&1; rm -rf \(dir)"
                let first = Self.stopCommands.withLock { all in
                    all.append(stop); return all.count == 1
                }
                if first {
                    atexit {
                        let all = ThrowawayPostgres.stopCommands.withLock { all in
                            defer { all = [] }; return all
                        }
                        for command in all { _ = system(command) }
                    }
                }
                // If this process dies without exit handlers, a watchdog in a session of its own
                // (setsid -f: immune to signals sent to the test's process group) stops the server.
                _ = try? await Self.run(
                    "/usr/bin/setsid",
                    [
                        "-f", "/bin/sh", "-c",
                        "exec </dev/null >/dev/null 2>&1; while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; if [ -d \(data) ]; then \(stop); fi",
                    ],
                    as: nil, closingInheritedDescriptors: true)
                return Server(bin: bin, dataDirectory: data, port: port, asUser: asUser, options: options)
            }
            // The port may have been taken between probing and binding: try another.
            let log = (try? String(contentsOfFile: dir + "/server.log", encoding: .utf8)) ?? ""
            if !log.contains("could not bind") && !log.contains("in use") {
                throw HarnessError("pg_ctl start failed: \(r.stderr)\n\(log.suffix(2000))")
            }
        }
        throw HarnessError("no free loopback port for PostgreSQL after 5 tries")
    }

    /// A loopback TCP port nobody listens on right now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard bound == 0 else { throw HarnessError("bind() failed") }
        let named = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        guard named == 0 else { throw HarnessError("getsockname() failed") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Runs a command, as `user` when given. With `closingInheritedDescriptors`, every descriptor
    /// above 2 is closed before it starts: a daemon it leaves behind (the server, the watchdog)
    /// must not keep Foundation's child-monitoring sockets open, or no Process would ever be
    /// seen to terminate.
    public static func run(
        _ executable: String, _ arguments: [String], as user: String?,
        closingInheritedDescriptors: Bool = false
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        var command = [executable] + arguments
        if let user { command = ["/usr/sbin/runuser", "-u", user, "--"] + command }
        if closingInheritedDescriptors {
            let script = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null; fi; done; exec "$@""#
            command = ["/bin/bash", "-c", script, "bash"] + command
        }
        return try await runProcess(command[0], Array(command.dropFirst()))
    }
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
