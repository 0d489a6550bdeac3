import CLIHarness
import Foundation
import Testing

/// `scripts/fuzz.sh` seeds each target from vector folders that exist (issue 11 item 9: it named
/// TestVectors/rfc7515, rfc7520 and jwks, which do not, so the token and jwk targets started from nothing).
@Suite struct FuzzSeedTests {
    @Test func everySeedFolderExists() throws {
        let script = try String(contentsOf: CLI.packageRoot.appendingPathComponent("scripts/fuzz.sh"), encoding: .utf8)
        let body = try #require(script.range(of: "seed_dirs() {").map { script[$0.upperBound...] })
        let function = body[..<(body.range(of: "\n}\n")?.lowerBound ?? body.endIndex)]
        let folders = function.split(whereSeparator: { " ()\n;\"".contains($0) })
            .filter { $0.hasPrefix("TestVectors/") && !$0.contains("$") }
        #expect(folders.count >= 3)
        for folder in folders {
            var isDirectory: ObjCBool = false
            let path = CLI.packageRoot.appendingPathComponent(String(folder)).path
            #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue, "\(folder)")
        }
    }
}
