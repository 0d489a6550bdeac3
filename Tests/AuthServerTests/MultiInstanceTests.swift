import CLIHarness
import Foundation
import JOSE
import Testing

/// Two `tokentool serve` processes on one PostgreSQL database: the same sessions refreshed at once
/// through both; one address's logins counted by both against one limit.
@Suite("Several instances on PostgreSQL", .serialized)
struct MultiInstanceTests {
    @Test("concurrent refreshes of the same tokens through two processes: exactly one rotation wins each race, no session forks")
    func oneRotationWins() async throws {
        try await withTwoInstances { url, url1, url2 in try await raceRotations(url, url1, url2) }
    }

    func raceRotations(_ url: String, _ url1: String, _ url2: String) async throws {
        // Many sessions, each raced in several rounds: every round, six refreshes of the session's
        // current token at once, alternating between the two processes, all sessions at the same time.
        let sessions = 8, rounds = 3
        var tokens: [String] = []
        for _ in 0..<sessions {
            let login = try await LiveServer.post(url1 + LiveServer.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            tokens.append(try #require(login["refresh_token"]))
        }
        for round in 0..<rounds {
            let current = tokens
            let answers = try await withThrowingTaskGroup(of: (Int, LiveServer.Answer).self) { group in
                for (s, refresh) in current.enumerated() {
                    for k in 0..<6 {
                        let target = ((k + s) % 2 == 0 ? url1 : url2) + LiveServer.base + "/auth/session"
                        group.addTask { (s, try await LiveServer.post(target, body: nil, bearer: refresh)) }
                    }
                }
                return try await group.reduce(into: [Int: [LiveServer.Answer]]()) { $0[$1.0, default: []].append($1.1) }
            }
            for s in 0..<sessions {
                let race = answers[s] ?? []
                // Every answer is 201 with one and the same successor: one rotation, the rest its grace replays.
                #expect(race.count == 6 && race.allSatisfy { $0.status == 201 }, "round \(round), session \(s): \(race.map(\.status))")
                let successors = Set(race.compactMap { $0["refresh_token"] })
                #expect(successors.count == 1, "round \(round), session \(s): \(successors.count) successors")
                let successor = try #require(successors.first)
                #expect(successor != current[s])
                tokens[s] = successor
            }
        }
        // No session forked: each has exactly one unspent refresh token, and it is the one handed out.
        let unspent = try await psql(url, "SELECT COUNT(*) FROM refresh_tokens WHERE used_at IS NULL GROUP BY session_id HAVING COUNT(*) <> 1")
        #expect(unspent.isEmpty, "sessions with other than one unspent token: \(unspent)")
        let live = try await psql(url, "SELECT COUNT(DISTINCT session_id) FROM refresh_tokens WHERE used_at IS NULL")
        #expect(live == "\(sessions)")
        for token in tokens {
            #expect(try await LiveServer.post(url2 + LiveServer.base + "/auth/session", body: nil, bearer: token).status == 201)
        }
    }

    @Test("concurrent anonymous logins through two processes from one address: exactly the limit pass, the refused create nothing")
    func theThrottleHoldsAcrossInstances() async throws {
        let limits = #""limits":{"login_per_address":"100000/1h","anonymous_per_address":"7/1h"},"#
        try await withTwoInstances(limits: limits) { url, url1, url2 in try await countLogins(url, url1, url2) }
    }

    func countLogins(_ url: String, _ url1: String, _ url2: String) async throws {
        // 30 logins at once, alternating between the processes (each under its max_in_flight of 32).
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for k in 0..<30 {
                let target = (k % 2 == 0 ? url1 : url2) + LiveServer.base + "/app/myapp/auth/providers/anon-user/login"
                group.addTask { try await LiveServer.post(target, body: "{}").status }
            }
            return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
        }
        #expect(statuses == [200: 7, 429: 23])
        // Only the 7 let in made anything; every counted event is in the store (none lost): 30 on
        // login_per_address, 7 on anonymous_per_address (a refused event is not counted).
        #expect(try await psql(url, "SELECT COUNT(*) FROM users") == "7")
        #expect(try await psql(url, "SELECT COUNT(*) FROM sessions") == "7")
        #expect(
            try await psql(url, "SELECT string_agg(n::text, ',' ORDER BY n) FROM (SELECT COUNT(*) AS n FROM throttle_events GROUP BY key) c")
                == "7,30")
    }

    /// Two `tokentool serve` processes on one new database, the app `myapp` (rotation on, anonymous
    /// logins) and `limits` (a config member with its comma, or nothing): `body(database, url1, url2)`,
    /// then both stopped, each expected to exit 0.
    func withTwoInstances(limits: String = "", _ body: (String, String, String) async throws -> Void) async throws {
        guard StoreKind.available.contains(.postgres) else { return }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-multi-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = try await ThrowawayPostgres.shared.server().createDatabase()
        try MasterKeyFixture.write(dir + "/master.key")
        try """
        {"public_url":"http://auth.test","store":"\(url)","master_key_file":"master.key",\(limits)
         "apps":{"myapp":{"refresh_rotation":true,"providers":{"anon-user":{}}}}}
        """.write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        let one = try ServeProcess(["--config", dir + "/server.json", "--listen", "127.0.0.1:0"], directory: dir, name: "one")
        let two = try ServeProcess(["--config", dir + "/server.json", "--listen", "127.0.0.1:0"], directory: dir, name: "two")
        defer { kill(one.process.processIdentifier, SIGKILL); kill(two.process.processIdentifier, SIGKILL) }
        let url1 = try #require(try await one.listening(), "\(one.stderr)")
        let url2 = try #require(try await two.listening(), "\(two.stderr)")
        try await body(url, url1, url2)
        #expect(try await one.stop() == 0)
        #expect(try await two.stop() == 0)
    }

    /// The output of one query through `psql` (tuples only, unaligned), trimmed.
    func psql(_ url: String, _ sql: String) async throws -> String {
        let server = try await ThrowawayPostgres.shared.server()
        let r = try await runProcess(server.bin + "/psql", [url, "-tAc", sql])
        guard r.status == 0 else { throw HarnessError("psql failed: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
