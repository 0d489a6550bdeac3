import ArgumentParser
import Foundation
import JOSE
import Sessions

extension TokenCommand {
    /// Measures refresh-token rotations per second on a store: each rotation is a full
    /// `refresh` (one transaction spending the token and storing its successor, plus a signed
    /// access token). Chains run concurrently, each on its own session.
    struct SessionBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Measure refresh-token rotations per second on a store.",
            discussion: "Prints {\"store\":\"sqlite\",\"op\":\"rotate\",\"rotations_per_sec\":N,\"rotations\":N,\"seconds\":S,\"concurrency\":C}. The bench user and its sessions are deleted afterwards.")
        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: "How long to run.") var seconds: Double = 3
        @Option(name: .long, help: "Independent sessions rotated at the same time.") var concurrency: Int = 1
        @OptionGroup var output: JSONOption

        func validate() throws {
            guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
            guard concurrency >= 1, concurrency <= 256 else { throw ValidationError("--concurrency must be 1…256") }
        }

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let seconds = self.seconds
                let concurrency = self.concurrency
                let (rotations, elapsed) = try await store.withSessions { sessions -> (Int, Double) in
                    let userID = "bench-\(UUID().uuidString.lowercased())"
                    _ = try await sessions.ensureUser(id: userID)
                    var starts: [String] = []
                    for _ in 0..<concurrency { starts.append(try await sessions.issueTokens(userID: userID).refreshToken) }
                    _ = try await sessions.refresh(starts[0])  // warm up: key parsed, statements compiled
                    starts[0] = try await sessions.issueTokens(userID: userID).refreshToken
                    let clock = ContinuousClock()
                    let begin = clock.now
                    let deadline = begin.advanced(by: .milliseconds(Int64(seconds * 1000)))
                    let total = try await withThrowingTaskGroup(of: Int.self) { group in
                        for start in starts {
                            group.addTask {
                                var token = start
                                var count = 0
                                while clock.now < deadline {
                                    token = try await sessions.refresh(token).refreshToken
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
                    return (total, elapsed)
                }
                let rate = Double(rotations) / elapsed
                if output.json {
                    printJSON(.object(["store": .string(store.storeKind), "op": "rotate", "rotations_per_sec": .double((rate * 10).rounded() / 10),
                                       "rotations": .int(Int64(rotations)), "seconds": .double((elapsed * 1000).rounded() / 1000),
                                       "concurrency": .int(Int64(concurrency))]))
                } else {
                    print("\(store.storeKind): \(rotations) rotations in \(String(format: "%.2f", elapsed)) s with \(concurrency) concurrent session(s): \(String(format: "%.0f", rate)) rotations/s")
                }
            }
        }
    }
}
