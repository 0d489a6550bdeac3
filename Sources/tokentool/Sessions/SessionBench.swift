import ArgumentParser
import Foundation
import Identity
import JOSE
import Sessions

extension TokenCommand {
    /// Measures store operations per second with no HTTP in the way, each the whole library call
    /// (its transactions and the signed access token): the floors of the server's login and refresh
    /// rows in `make bench-server`. Chains run concurrently, each on its own session.
    struct SessionBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Measure refresh-token rotations (or refreshes, or sign-ins) per second on a store.",
            discussion: """
                --op rotate (default): refresh with rotation (one transaction spending the token and storing its successor). \
                --op refresh: refresh keeping the token (the server's refresh_rotation false). \
                --op login: a first sign-in (a new user, identity, session and refresh token), after counting it on the \
                throttle twice, as the server's anonymous login does for one client address (login_addr and anon_addr, \
                limits 100000/1s: counted, never refused). \
                --op profile: the store work of the server's GET profile (the access token verified, from the cache; the session \
                and user live-checked, two reads; the user's identities read). \
                Each includes the signed access token. Prints {"store":"sqlite","op":"rotate","rotations_per_sec":N,"rotations":N,"seconds":S,"concurrency":C} \
                (the same members for every op). The bench users and their sessions are deleted afterwards.
                """)
        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "How long to run.") var seconds: Double = 3
        @Option(name: .long, help: "Independent sessions rotated at the same time.") var concurrency: Int = 1
        @Option(name: .long, help: "rotate, refresh or login.") var op: String = "rotate"
        @OptionGroup var output: JSONOption

        /// The provider of the users `--op login` creates (and deletes).
        static let loginProvider = "tokentool-bench"

        func validate() throws {
            guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
            guard concurrency >= 1, concurrency <= 256 else { throw ValidationError("--concurrency must be 1…256") }
            guard ["rotate", "refresh", "login", "profile"].contains(op) else {
                throw ValidationError("--op must be rotate, refresh, login or profile")
            }
        }

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let (count, elapsed) = try await store.withSessions { sessions in try await measure(sessions) }
                let rate = Double(count) / elapsed
                if output.json {
                    printJSON(
                        .object([
                            "store": .string(store.storeKind), "op": .string(op), "rotations_per_sec": .double((rate * 10).rounded() / 10),
                            "rotations": .int(Int64(count)), "seconds": .double((elapsed * 1000).rounded() / 1000),
                            "concurrency": .int(Int64(concurrency)),
                        ]))
                } else {
                    let what = ["rotate": "rotations", "refresh": "refreshes", "login": "sign-ins", "profile": "profile reads"][op] ?? op
                    print(
                        "\(store.storeKind): \(count) \(what) in \(String(format: "%.2f", elapsed)) s with \(concurrency) concurrent session(s): \(String(format: "%.0f", rate)) \(what)/s"
                    )
                }
            }
        }

        /// Runs `concurrency` chains of the op until the deadline: (operations, seconds).
        private func measure(_ sessions: SessionManager) async throws -> (Int, Double) {
            let op = self.op
            let throttle = Throttle(store: sessions.store, clock: sessions.configuration.clock)
            let userID = "bench-\(UUID().uuidString.lowercased())"
            _ = try await sessions.ensureUser(id: userID)
            var starts: [String] = []
            var accessTokens: [String] = []
            for _ in 0..<concurrency {
                let pair = try await sessions.issueTokens(userID: userID)
                starts.append(pair.refreshToken)
                accessTokens.append(pair.accessToken)
            }
            // Warm up (key unsealed, statements compiled) without spending a chain's token.
            let warm = try await sessions.issueTokens(userID: userID).refreshToken
            _ = try await sessions.refresh(warm)
            _ = try await sessions.signIn(with: Self.newIdentity())
            let clock = ContinuousClock()
            let begin = clock.now
            let deadline = begin.advanced(by: .milliseconds(Int64(seconds * 1000)))
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for (start, access) in zip(starts, accessTokens) {
                    group.addTask {
                        var token = start
                        var count = 0
                        while clock.now < deadline {
                            switch op {
                            case "login":
                                for key in Self.throttleKeys { _ = try await throttle.hit(key, limit: Self.throttleLimit) }
                                _ = try await sessions.signIn(with: Self.newIdentity())
                            case "refresh": _ = try await sessions.refreshKeepingToken(token)
                            case "profile":
                                let claims = try await sessions.verifyAccessToken(access, checkSession: false)
                                guard try await sessions.isLive(claims) else { throw TokenError(.sessionRevoked, "the bench session ended") }
                                _ = try await sessions.identities(of: claims.subject)
                            default: token = try await sessions.refresh(token).refreshToken
                            }
                            count += 1
                        }
                        return count
                    }
                }
                return try await group.reduce(0, +)
            }
            let d = begin.duration(to: clock.now)
            let elapsed = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            try await sessions.deleteUser(id: userID)
            // The sign-ins' users: every one is idle "before" a minute from now.
            while try await sessions.removeIdleUsers(onlyProvider: Self.loginProvider, idleSeconds: -60) > 0 {}
            return (total, elapsed)
        }

        /// The server's anonymous login counts these for the client's address (all of a bench's
        /// logins come from 127.0.0.1), under `make bench-server`'s limits.
        static let throttleKeys = ["login_addr:127.0.0.1", "anon_addr:127.0.0.1"]
        static let throttleLimit = RateLimit(count: 100_000, window: 1)

        /// A first sign-in's identity, as the server's anonymous login makes one (a random subject).
        private static func newIdentity() throws -> Identity {
            Identity(provider: loginProvider, subject: try RandomID.hex(bytes: 12))
        }
    }
}
