import CLIHarness
import Foundation
import JOSE
import Testing
@_spi(Testing) import SessionStorePostgres
@_spi(Testing) @testable import Sessions

/// Store locations without secrets on command lines, and TLS by default.
@Suite struct StoreLocationTests {
    @Test func postgresRequiresTLSExceptToLoopbackAndUnixSockets() throws {
        #expect(try PostgresSessionStore.Location(url: "postgres://app@db.internal:5432/auth").sslMode == "require")
        #expect(try PostgresSessionStore.Location(url: "postgres://app@10.0.0.5/auth").sslMode == "require")
        #expect(try PostgresSessionStore.Location(url: "postgres://app@127.0.0.1:5432/auth").sslMode == "disable")
        #expect(try PostgresSessionStore.Location(url: "postgres://app@127.1.2.3/auth").sslMode == "disable")
        #expect(try PostgresSessionStore.Location(url: "postgres://app@localhost/auth").sslMode == "disable")
        #expect(try PostgresSessionStore.Location(url: "postgres://app@[::1]:5432/auth").sslMode == "disable")
        #expect(try PostgresSessionStore.Location(url: "postgres://app@db.internal/auth?host=/run/postgresql").sslMode == "disable")
        // 127.example.com is not loopback.
        #expect(try PostgresSessionStore.Location(url: "postgres://app@127.example.com/auth").sslMode == "require")
        // An explicit sslmode is kept.
        #expect(try PostgresSessionStore.Location(url: "postgres://app@db.internal/auth?sslmode=disable").sslMode == "disable")
        #expect(try PostgresSessionStore.Location(url: "postgres://app@127.0.0.1/auth?sslmode=require").sslMode == "require")
    }

    @Test func postgresWaitsAreBoundedAndConfigurable() throws {
        let defaults = try PostgresSessionStore.Location(url: "postgres://app@127.0.0.1/auth")
        #expect(defaults.connectTimeout == .seconds(5) && defaults.queryTimeout == .seconds(30))
        let set = try PostgresSessionStore.Location(url: "postgres://app@127.0.0.1/auth?connect_timeout=2&query_timeout=30")
        #expect(set.connectTimeout == .seconds(2) && set.queryTimeout == .seconds(30))
        for bad in ["connect_timeout=0", "connect_timeout=61", "connect_timeout=x", "query_timeout=0", "query_timeout=301"] {
            #expect(throws: TokenError.self, "\(bad)") { try PostgresSessionStore.Location(url: "postgres://app@127.0.0.1/auth?" + bad) }
        }
    }

    /// Flags win over the environment, a file over a value: `--store-file`, `--store`,
    /// `$TOKENTOOL_STORE_FILE`, `$TOKENTOOL_STORE`, ./tokentool.sqlite (the order `serve` keeps too).
    @Test func storeFlagsWinOverTheVariables() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-order-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/flag-file", contents: Data("\(dir)/flag-file.sqlite\n".utf8))
        _ = FileManager.default.createFile(atPath: dir + "/variable-file", contents: Data("\(dir)/variable-file.sqlite\n".utf8))
        let variables: [String: String?] = [
            "TOKENTOOL_STORE_FILE": dir + "/variable-file", "TOKENTOOL_STORE": dir + "/variable.sqlite", "TOKENTOOL_MASTER_KEY_FILE": nil,
        ]
        let runs: [(arguments: [String], environment: [String: String?], store: String)] = [
            (["--store-file", dir + "/flag-file", "--store", dir + "/flag.sqlite"], variables, "flag-file.sqlite"),
            (["--store", dir + "/flag.sqlite"], variables, "flag.sqlite"),
            ([], variables, "variable-file.sqlite"),
            ([], variables.merging(["TOKENTOOL_STORE_FILE": nil]) { $1 }, "variable.sqlite"),
        ]
        for run in runs {
            let r = try await CLI.detached { try CLI.tokentool(["token", "issue", "--sub", "alice"] + run.arguments, environment: run.environment) }
            #expect(r.status == 0, "\(run.arguments): \(r.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/" + run.store), "\(run.arguments)")
            try? FileManager.default.removeItem(atPath: dir + "/" + run.store)
        }
    }

    @Test(arguments: StoreKind.available)
    func storeFromAFile(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
            _ = FileManager.default.createFile(atPath: file, contents: Data((t.location + "\n").utf8), attributes: [.posixPermissions: 0o600])
            defer { try? FileManager.default.removeItem(atPath: file) }
            let issue = try await CLITests.tokentool(["token", "issue", "--store-file", file, "--sub", "alice", "--json"])
            #expect(issue.status == 0, "\(issue.stderr)")
            let sessions = Conformance.manager(t.store, TestClock())
            #expect(try await sessions.user(id: "alice") != nil)
            // The refresh token from a file (@FILE), off the command line.
            let rt = try #require(try issue.json["refresh_token"]?.stringValue)
            let rtFile = file + ".rt"
            _ = FileManager.default.createFile(atPath: rtFile, contents: Data((rt + "\n").utf8), attributes: [.posixPermissions: 0o600])
            defer { try? FileManager.default.removeItem(atPath: rtFile) }
            let refresh = try await CLITests.tokentool(["token", "refresh", "--store-file", file, "--json", "@" + rtFile])
            #expect(refresh.status == 0, "\(refresh.stderr)")
            #expect(try refresh.json["refresh_token"]?.stringValue != rt)
        }
    }
}
