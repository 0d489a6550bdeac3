import CLIHarness
import Foundation
import Logging
import SQLiteNIO
import Testing

/// The server under faults (a killed instance, a PostgreSQL restart, slow providers), in a short form: a few seconds each.
/// docs/server.md "Operating: failures" says what these prove.
@Suite("Faults", .serialized)
struct FaultTests {
    /// An app with rotation on, limits that a load from one address does not hit, and a reuse grace
    /// long enough to outlast a restart on a busy machine.
    static func config(store: String, extra: String = "") -> String {
        """
        {"public_url":"http://auth.test","store":"\(store)", \(extra)
         "limits":{"login_per_address":"100000/5m","anonymous_per_address":"100000/1h"},
         "apps":{"myapp":{"refresh_rotation":true,"reuse_grace":"5m","providers":{"anon-user":{}}}}}
        """
    }

    static func temporaryDirectory(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("kill -9 during logins and refreshes on SQLite: every answered login and refresh survives, nothing half-written")
    func killNineOnSQLite() async throws {
        let dir = try Self.temporaryDirectory("kill9")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.config(store: "sessions.sqlite").write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        let arguments = ["--config", dir + "/server.json", "--listen", "127.0.0.1:0"]
        let first = try ServeProcess(arguments, directory: dir, name: "first")
        defer { kill(first.process.processIdentifier, SIGKILL) }
        let url1 = try #require(try await first.listening(), "\(first.stderr)")

        // The load; SIGKILL once it has answered a fair number of logins and refreshes.
        let load = FaultLoad()
        let running = Task { await load.run(servers: [url1], clients: 6, endOnLoss: true) }
        let busy = await FaultLoad.eventually(within: 60) { load.answers.filter { $0.status == 201 }.count >= 100 }
        #expect(busy, "the load got \(load.answers.count) answers before the deadline")
        kill(first.process.processIdentifier, SIGKILL)
        await running.value
        #expect(try await first.exitStatus() == SIGKILL)
        let answered = load.sessions
        #expect(load.answers.allSatisfy { [200, 201].contains($0.status) }, "\(Set(load.answers.map(\.status)))")
        #expect(!answered.isEmpty)

        // The same file and master key (created beside it on the first start).
        let second = try ServeProcess(arguments, directory: dir, name: "second")
        defer { kill(second.process.processIdentifier, SIGKILL) }
        let url2 = try #require(try await second.listening(), "\(second.stderr)")
        let broken = try await load.verifySessions(base: url2)
        #expect(broken.isEmpty, "\(broken.prefix(5)) of \(answered.count) sessions")
        #expect(try await second.stop() == 0)

        let problems = try await Self.halfWritten(sqlite: dir + "/sessions.sqlite")
        #expect(problems.isEmpty, "\(problems)")
    }

    /// What is wrong in the file: an integrity check that is not `ok`; a session without a refresh
    /// token; a user without an identity; a session with two unspent refresh tokens (a fork).
    static func halfWritten(sqlite path: String) async throws -> [String] {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: Logger(label: "fault-test"))
        do {
            var problems: [String] = []
            let integrity = try await connection.query("PRAGMA integrity_check").compactMap { $0.column("integrity_check")?.string }
            if integrity != ["ok"] { problems.append("integrity_check: \(integrity.prefix(3))") }
            let checks = [
                "sessions without a refresh token":
                    "SELECT COUNT(*) AS n FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.session_id = s.id)",
                "users without an identity": "SELECT COUNT(*) AS n FROM users u WHERE NOT EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id)",
                "sessions with two unspent refresh tokens":
                    "SELECT COUNT(*) AS n FROM (SELECT session_id FROM refresh_tokens WHERE used_at IS NULL GROUP BY session_id HAVING COUNT(*) > 1)",
            ]
            for (what, sql) in checks {
                let n = try await connection.query(sql).first?.column("n")?.integer ?? -1
                if n != 0 { problems.append("\(what): \(n)") }
            }
            try await connection.close()
            return problems
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
