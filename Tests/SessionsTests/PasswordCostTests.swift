import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The cost of password hashing at the default parameters, and a burst of 100 concurrent
/// sign-ins; run only with TOKENTOOL_BENCH=1 (it takes seconds and hundreds of MiB). Prints the
/// numbers docs/accounts.md quotes.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["TOKENTOOL_BENCH"] == "1"))
struct PasswordCostTests {
    @Test func defaultHashAndABurstOfLogins() async throws {
        let hasher = try PasswordHasher(parameters: .default, concurrency: 2)
        let start = Date()
        let stored = try await hasher.hash("a password of some length")
        let one = Date().timeIntervalSince(start)
        try await Harness.withStore(.sqlite) { t in
            let accounts = try AccountManager(
                sessions: Conformance.manager(t.store, TestClock()),
                policy: AccountPolicy(minPasswordLength: 6, autoConfirm: true), hasher: hasher)
            _ = try await accounts.register(email: "burst@example.com", password: "a password of some length")
            let burst = Date()
            let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        if case .success = try await accounts.login(email: "burst@example.com", password: "a password of some length") { return true }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            let elapsed = Date().timeIntervalSince(burst)
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            print(
                String(
                    format:
                        "bench: one scrypt hash (ln=17,r=8,p=1) %.0f ms; 100 concurrent logins (concurrency 2): %.1f s, %.1f logins/s, peak RSS %d MiB",
                    one * 1000, elapsed, Double(ok) / elapsed, usage.ru_maxrss / 1024))
            #expect(ok == 100)
        }
        #expect(stored.parameters == .default)
    }
}
