import Foundation
import JOSE
import Testing

/// Two `tokentool serve` processes on one PostgreSQL database, refreshing one session at once.
@Suite("Several instances on PostgreSQL", .serialized)
struct MultiInstanceTests {
    @Test("concurrent refreshes of one token through two processes: exactly one rotation wins")
    func oneRotationWins() async throws {
        guard StoreKind.available.contains(.postgres) else { return }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-multi-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let url = try await ThrowawayPostgres.shared.server().createDatabase()
        try MasterKeyFixture.write(dir + "/master.key")
        try """
        {"public_url":"http://auth.test","store":"\(url)","master_key_file":"master.key",
         "apps":{"myapp":{"refresh_rotation":true,"providers":{"anon-user":{}}}}}
        """.write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        let one = try ServeProcess(["--config", dir + "/server.json", "--listen", "127.0.0.1:0"], directory: dir, name: "one")
        let two = try ServeProcess(["--config", dir + "/server.json", "--listen", "127.0.0.1:0"], directory: dir, name: "two")
        defer { kill(one.process.processIdentifier, SIGKILL); kill(two.process.processIdentifier, SIGKILL) }
        let url1 = try #require(try await one.listening(), "\(one.stderr)")
        let url2 = try #require(try await two.listening(), "\(two.stderr)")

        let login = try await LiveServer.post(url1 + LiveServer.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
        let refresh = try #require(login["refresh_token"])
        do {
            let answers = try await withThrowingTaskGroup(of: LiveServer.Answer.self) { group in
                for k in 0..<6 {
                    let target = (k % 2 == 0 ? url1 : url2) + LiveServer.base + "/auth/session"
                    group.addTask { try await LiveServer.post(target, body: nil, bearer: refresh) }
                }
                return try await group.reduce(into: [LiveServer.Answer]()) { $0.append($1) }
            }
            // Every answer is 201 with one and the same successor: one rotation, the rest its grace replays.
            #expect(answers.allSatisfy { $0.status == 201 }, "\(answers.map(\.status))")
            #expect(Set(answers.compactMap { $0["refresh_token"] }).count == 1)
            let successor = try #require(answers.first?["refresh_token"])
            #expect(successor != refresh)
            #expect(try await LiveServer.post(url2 + LiveServer.base + "/auth/session", body: nil, bearer: successor).status == 201)
        }
        #expect(try await one.stop() == 0)
        #expect(try await two.stop() == 0)
    }
}
