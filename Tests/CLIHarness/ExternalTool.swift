import Foundation

/// Independent tools the second-factor tests compare against (Debian's `oathtool`, PyPI's `pyotp`),
/// run as child processes. `make deps` installs them; where one is missing the tests that need it
/// are skipped with a message saying so, except under `CI=1`, where they run and fail.
public enum ExternalTool {
    /// `true` when `command` runs (`command --version` or the probe given exits 0), or under CI.
    public static func available(_ probe: [String]) -> Bool {
        if ProcessInfo.processInfo.environment["CI"] != nil { return true }
        return (try? CLI.run("/usr/bin/env", probe))?.status == 0
    }

    public static let oathtool = available(["oathtool", "--version"])
    public static let pyotp = available(["python3", "-c", "import pyotp"])

    /// Runs `command args…` on a thread of its own (``CLI/detached(_:)``: waiting for a process on
    /// the concurrency pool would stall every server a parallel test run has in this process),
    /// returning its standard output without the final newline.
    public static func output(_ command: String, _ args: [String], stdin: String? = nil) async throws -> String {
        let r = try await CLI.detached { try CLI.run("/usr/bin/env", [command] + args, stdin: stdin) }
        guard r.status == 0 else { throw CLI.Failure("\(command) failed (\(r.status)): \(r.stderr)") }
        return r.stdout.hasSuffix("\n") ? String(r.stdout.dropLast()) : r.stdout
    }

    /// The TOTP code of a base32 secret at a Unix time, by Debian's `oathtool` (`--totp --base32 --now @T`).
    public static func oathtoolCode(_ base32Secret: String, at unixSeconds: Int64) async throws -> String {
        try await output("oathtool", ["--totp", "--base32", "--now", "@\(unixSeconds)", base32Secret])
    }
}
