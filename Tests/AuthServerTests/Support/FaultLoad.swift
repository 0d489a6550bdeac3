import Foundation
import Synchronization
import Testing

/// The fault tests' clients: concurrent loops of anonymous logins and refreshes (rotation on)
/// against one or more servers, keeping each session's newest tokens as a real client would, and
/// every answer they got. A request that fails without an answer (the server died, the
/// connection dropped) leaves the session's tokens as they were: the answer was lost.
final class FaultLoad: Sendable {
    /// A session as its client holds it: the tokens of the last 2xx answer it got.
    struct Held: Sendable {
        var userID: String
        var access: String
        var refresh: String
        /// A refresh was sent with `refresh` and its answer never came.
        var lostRefresh = false
    }

    /// One answer: status, `error_code`, how long it took.
    struct Seen: Sendable {
        var status: Int
        var errorCode: String?
        var elapsed: Duration
    }

    private let held = Mutex<[Held]>([])
    private let seen = Mutex<[Seen]>([])
    private let failures = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    var sessions: [Held] { held.withLock { $0 } }
    var answers: [Seen] { seen.withLock { $0 } }
    /// Requests that got no answer at all.
    var unanswered: Int { failures.load(ordering: .relaxed) }
    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Sends one request, recording its answer (or its lack of one, as `nil`).
    func send(_ method: String, _ url: String, body: String? = nil, bearer: String? = nil) async -> LiveServer.Answer? {
        let start = ContinuousClock.now
        do {
            let answer = try await LiveServer.send(method == "POST" ? .POST : .GET, url, body: body, bearer: bearer)
            let elapsed = ContinuousClock.now - start
            seen.withLock { $0.append(Seen(status: answer.status, errorCode: answer.errorCode, elapsed: elapsed)) }
            return answer
        } catch {
            failures.add(1, ordering: .relaxed)
            return nil
        }
    }

    /// `clients` loops, each: an anonymous login, then `refreshes` refreshes of that session (and
    /// a profile read), round-robin over `servers`; until ``stop()``, or until a request gets no
    /// answer and `endOnLoss` is set (a server that died). Returns when every loop has ended.
    func run(servers: [String], app: String = "myapp", clients: Int, refreshes: Int = 3, endOnLoss: Bool) async {
        await withTaskGroup(of: Void.self) { group in
            for c in 0..<clients {
                group.addTask {
                    var turn = c
                    func next() -> String { turn += 1; return servers[turn % servers.count] + LiveServer.base }
                    while !self.stopped.load(ordering: .relaxed) {
                        guard let login = await self.send("POST", next() + "/app/\(app)/auth/providers/anon-user/login", body: "{}") else {
                            if endOnLoss { return } else { continue }
                        }
                        guard login.status == 200, let user = login["user_id"], let access = login["access_token"],
                            let refresh = login["refresh_token"]
                        else { continue }
                        let index = self.held.withLock {
                            $0.append(Held(userID: user, access: access, refresh: refresh)); return $0.count - 1
                        }
                        for _ in 0..<refreshes where !self.stopped.load(ordering: .relaxed) {
                            let token = self.held.withLock { $0[index].refresh }
                            guard let answer = await self.send("POST", next() + "/auth/session", bearer: token) else {
                                self.held.withLock { $0[index].lostRefresh = true }
                                if endOnLoss { return } else { break }
                            }
                            guard answer.status == 201, let successor = answer["refresh_token"] else { break }
                            self.held.withLock { $0[index].refresh = successor }
                        }
                        if await self.send("GET", next() + "/auth/profile", bearer: access) == nil, endOnLoss { return }
                    }
                }
            }
        }
    }

    /// Checks every session a login answered, through `base` (a server URL): its access token reads
    /// its profile; the refresh token of its last answer refreshes, and so does the successor. A
    /// refresh whose answer was lost may have been committed: its token is then spent, and within
    /// `reuse_grace` it gets the same successor (201), never 401. Returns what failed.
    func verifySessions(base: String) async throws -> [String] {
        let url = base + LiveServer.base
        let all = sessions
        return try await withThrowingTaskGroup(of: String?.self) { group -> [String] in
            var broken: [String] = []
            for (n, session) in all.enumerated() {
                group.addTask {
                    let profile = try await LiveServer.send(.GET, url + "/auth/profile", bearer: session.access)
                    guard profile.status == 200, profile["user_id"] == session.userID else { return "session \(n): profile \(profile.status)" }
                    let refreshed = try await LiveServer.post(url + "/auth/session", body: nil, bearer: session.refresh)
                    guard refreshed.status == 201, let next = refreshed["refresh_token"] else {
                        return "session \(n) (answer lost: \(session.lostRefresh)): refresh \(refreshed.status) \(refreshed.errorCode ?? "")"
                    }
                    let again = try await LiveServer.post(url + "/auth/session", body: nil, bearer: next)
                    return again.status == 201 ? nil : "session \(n): the successor's refresh \(again.status)"
                }
                if n >= 8, let done = try await group.next(), let b = done { broken.append(b) }  // at most 8 at once
            }
            return try await group.reduce(into: broken) { if let b = $1 { $0.append(b) } }
        }
    }

    /// Polls `condition` every 50 ms for up to `seconds`; true once it holds.
    static func eventually(within seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

extension Duration {
    /// Seconds, as a Double (for messages and bounds).
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The `q`-quantile (0…1) of `durations`.
func quantile(_ durations: [Duration], _ q: Double) -> Duration {
    guard !durations.isEmpty else { return .zero }
    let sorted = durations.sorted()
    return sorted[max(0, min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1))]
}
