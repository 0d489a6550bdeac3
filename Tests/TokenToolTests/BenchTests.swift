import CLIHarness
import Foundation
import Testing
@testable import tokentool

/// `tokentool bench` (docs/performance.md): every algorithm with its raw rows, in the JSON shape the
/// peer harness reads; and the table's number formatting (`fixed`, which replaced `String(format:)`).
@Suite struct BenchTests {
    private static let algorithms = [
        "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
        "ES256", "ES384", "ES512", "EdDSA",
    ]

    private func rows(_ r: CLI.Result) throws -> [[String: Any]] {
        try r.stdout.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test func jsonReportsEveryAlgorithmWithItsRawRows() throws {
        let r = try CLI.tokentool(["bench", "--iterations", "3", "--json"])
        #expect(r.status == 0, "\(r)")
        let rows = try rows(r)
        let ops = ["verify", "raw-verify", "verify-cached", "sign", "raw-sign", "decode", "raw-decode"]
        #expect(rows.count == Self.algorithms.count * ops.count)
        for alg in Self.algorithms {
            #expect(rows.filter { $0["alg"] as? String == alg }.compactMap { $0["op"] as? String } == ops, "\(alg)")
        }
        for row in rows {
            #expect(Set(row.keys) == ["alg", "op", "ops_per_sec", "iterations", "seconds"])
            #expect(row["iterations"] as? Int == 3)
            #expect((row["ops_per_sec"] as? Double ?? 0) > 0)
            #expect((row["seconds"] as? Double ?? -1) >= 0)
        }
    }

    @Test func threadsAndOneOperation() throws {
        let r = try CLI.tokentool(["bench", "--alg", "ES256", "--op", "verify", "--no-raw", "--threads", "2", "--iterations", "5", "--json"])
        #expect(r.status == 0, "\(r)")
        let rows = try rows(r)
        #expect(rows.count == 1)
        #expect(rows.first?["op"] as? String == "verify")
        #expect(rows.first?["threads"] as? Int == 2)
        #expect(rows.first?["iterations"] as? Int == 10)  // the total of both threads
    }

    @Test func tableShowsOverheadAgainstTheRawRow() throws {
        let r = try CLI.tokentool(["bench", "--alg", "HS256", "--op", "decode", "--iterations", "5"])
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let decode = try #require(lines.first { $0.hasPrefix("HS256  decode") })
        #expect(decode.contains(" µs (×"), "decode is compared with raw-decode: \(decode)")
        #expect(lines.contains { $0.hasPrefix("HS256  raw-decode") })
    }

    @Test func cachedVerifyIsComparedWithTheFullVerify() throws {
        let r = try CLI.tokentool(["bench", "--alg", "ES256", "--op", "verify", "--iterations", "20"])
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let cached = try #require(lines.first { $0.hasPrefix("ES256  verify-cached") }, "\(r)")
        #expect(cached.contains("faster than verify"), "\(cached)")
    }

    @Test func runnersStartTogetherUpToTheThreadLimit() throws {
        let r = try CLI.tokentool(["bench", "--alg", "HS256", "--op", "decode", "--no-raw", "--threads", "64", "--iterations", "2", "--json"])
        #expect(r.status == 0, "\(r)")
        #expect(try rows(r).first?["iterations"] as? Int == 128)
        let over = try CLI.tokentool(["bench", "--threads", "65"])
        #expect(over.status == 2)
        #expect(over.stderr.contains("--threads must be 1 to 64"), "\(over)")
    }

    @Test func unknownOperationIsAUsageError() throws {
        let r = try CLI.tokentool(["bench", "--op", "raw-json"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("expected sign, verify, decode, raw-sign, raw-verify, verify-cached or raw-decode"), "\(r)")
    }

    @Test(arguments: [
        (12.3, 2, false, "12.30"),
        (12.3, 2, true, "+12.30"),
        (-3.14159, 2, true, "-3.14"),
        (-3.14159, 2, false, "-3.14"),
        (0.05, 2, false, "0.05"),
        (0.004, 2, true, "+0.00"),
        (-0.004, 2, false, "0.00"),
        (2.5, 0, false, "3"),
        (1_234_567.891, 0, false, "1234568"),
        (0.999, 2, false, "1.00"),
        (7.0, 3, false, "7.000"),
        (1_650_894.4, 1, false, "1650894.4"),
    ])
    func formatsLikePrintf(x: Double, digits: Int, sign: Bool, expected: String) {
        #expect(fixed(x, digits, sign: sign) == expected)
    }
}
