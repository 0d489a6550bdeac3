import Foundation
import Testing

extension FaultTests {
    @Test("PostgreSQL stopped and started: 503 ServiceUnavailable in bounded time while down, then back without a server restart")
    func postgresRestartedUnderLoad() async throws {
        guard StoreKind.available.contains(.postgres) else { return }
        // A PostgreSQL of its own: the shared one serves the other tests while this one is stopped.
        let pg = try await ThrowawayPostgres.dedicated().server()
        let url = try await pg.createDatabase() + "?connect_timeout=2&query_timeout=5"
        let apps = #"{"myapp":{"refresh_rotation":true,"reuse_grace":"5m","providers":{"anon-user":{}}}}"#
        let limits = #""limits":{"login_per_address":"100000/5m","anonymous_per_address":"100000/1h"},"#
        try await LiveServer.with(.postgres, apps: apps, extra: limits, store: url) { live in
            // Sessions made before the outage. The load pauses for the stop itself: postgres-nio
            // 1.33.2 can leave a query unanswered that was in flight at the instant the server
            // dropped its connection (docs/server.md "Operating: failures").
            let before = FaultLoad()
            let first = Task { await before.run(servers: [live.baseURL], clients: 4, endOnLoss: false) }
            #expect(await FaultLoad.eventually(within: 60) { before.answers.filter { $0.status == 201 }.count >= 30 })
            before.stop()
            await first.value

            try await pg.stop(mode: "fast")
            // While it is down, under load: every kind of request answers 503 with the contract's
            // body, within connect_timeout (2 s here) and ~0.5 s once the store is known down.
            let during = FaultLoad()
            let second = Task { await during.run(servers: [live.baseURL], clients: 4, endOnLoss: false) }
            defer { during.stop() }
            let login = LiveServer.base + "/app/myapp/auth/providers/anon-user/login"
            #expect(await FaultLoad.eventually(within: 20) { (try? await live.call(.POST, login, body: "{}"))?.status == 503 })
            let session = try #require(before.sessions.first)
            let probes: [(String, @Sendable () async throws -> LiveServer.Answer)] = [
                ("login", { try await live.call(.POST, login, body: "{}") }),
                ("refresh", { try await live.call(.POST, LiveServer.base + "/auth/session", bearer: session.refresh) }),
                ("profile", { try await live.call(.GET, LiveServer.base + "/auth/profile", bearer: session.access) }),
                ("healthz", { try await LiveServer.get(live.baseURL + "/healthz") }),
            ]
            for (name, probe) in probes {
                let start = ContinuousClock.now
                let answer = try await probe()
                let elapsed = ContinuousClock.now - start
                #expect(answer.status == 503, "\(name): \(answer.status) \(answer.body)")
                #expect(answer.errorCode == "ServiceUnavailable", "\(name): \(answer.body)")
                #expect(answer["link"] == "http://auth.test/errors#ServiceUnavailable", "\(name)")
                #expect(answer["error"] == "the session store is unavailable; retry shortly", "\(name)")
                #expect(elapsed < .seconds(2), "\(name) took \(elapsed.seconds) s with the store known down")
            }

            try await pg.restart()
            // Back within seconds (the pool's reconnection backoff), through the same server.
            #expect(
                await FaultLoad.eventually(within: 15) { (try? await live.call(.POST, login, body: "{}"))?.status == 200 },
                "no login succeeded within 15 s of PostgreSQL's restart")
            #expect(try await LiveServer.get(live.baseURL + "/healthz").status == 200)
            let resumed = during.answers.count
            #expect(await FaultLoad.eventually(within: 30) { during.answers.dropFirst(resumed).filter { $0.status == 201 }.count >= 10 })
            during.stop()
            await second.value

            // Only 2xx and 503, never a hang (slowest within connect_timeout plus slack); every
            // session a login answered, before or during the outage, still works.
            let statuses = Set(during.answers.map(\.status))
            #expect(statuses.isSubset(of: [200, 201, 503]), "\(statuses)")
            #expect(during.answers.contains { $0.status == 503 })
            #expect(during.unanswered == 0)
            let slowest = during.answers.map(\.elapsed).max() ?? .zero
            #expect(slowest < .seconds(5), "the slowest answer took \(slowest.seconds) s")
            for load in [before, during] {
                let broken = try await load.verifySessions(base: live.baseURL)
                #expect(broken.isEmpty, "\(broken.prefix(5)) of \(load.sessions.count) sessions")
            }
        }
    }
}
