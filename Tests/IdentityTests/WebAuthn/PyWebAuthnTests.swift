import CLIHarness
import Foundation
import Testing

/// py_webauthn (PyPI `webauthn`) accepts every vector of TestVectors/webauthn/, as when they were
/// made: the vectors are what an independent relying party accepts, not only what ours does.
/// It runs in the virtual environment `make deps` makes (.build-py); skipped with a message where
/// that is missing, except under `CI=1`.
@Suite struct PyWebAuthnTests {
    static let python = CLI.packageRoot.appendingPathComponent(".build-py/bin/python").path
    static let available = ProcessInfo.processInfo.environment["CI"] != nil || FileManager.default.isExecutableFile(atPath: python)

    @Test(.enabled(if: available, "py_webauthn is missing: make deps installs it in .build-py"))
    func pyWebAuthnAcceptsTheVectors() async throws {
        let script = CLI.packageRoot.appendingPathComponent("TestVectors/webauthn/make_vectors.py").path
        let r = try await CLI.detached { try CLI.run(Self.python, [script, "--check"]) }
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("py_webauthn accepts every vector"))
    }
}
