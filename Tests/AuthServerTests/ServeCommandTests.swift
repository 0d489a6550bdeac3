import CLIHarness
import Foundation
import JOSE
import Testing
@testable import Sessions

/// The `tokentool serve` binary: the listening line, SIGTERM, exit 2 on a bad config, the master key.
@Suite("tokentool serve", .serialized)
struct ServeCommandTests {
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-servecmd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("prints the real port, serves, creates the master key 0600 beside a SQLite store, exits 0 on SIGTERM")
    func listensAndStops() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"public_url":"http://auth.test","apps":{"a1":{"providers":{"anon-user":{}}}}}"#
            .write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        let serve = try ServeProcess(["--config", dir + "/server.json", "--listen", "127.0.0.1:0"], directory: dir)
        let url = try #require(try await serve.listening(), "\(serve.stderr)")
        #expect(url.hasPrefix("http://127.0.0.1:") && !url.hasSuffix(":0"))
        let health = try await LiveServer.get(url + "/healthz")
        #expect(health.status == 200 && health.body == #"{"status":"ok"}"#)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: dir + "/master.key")[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600)
        #expect(serve.stderr.contains("created a master key in \(dir)/master.key"))
        #expect(FileManager.default.fileExists(atPath: dir + "/tokentool.sqlite"))
        #expect(try await serve.stop() == 0)
    }

    @Test("a loopback public_url on another port than the listening one is warned about on standard error at start")
    func publicURLPortWarning() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (publicURL, warns) in [("http://127.0.0.1:9", true), ("http://auth.test", false)] {
            try #"{"public_url":"\#(publicURL)","apps":{"a1":{"providers":{"anon-user":{}}}}}"#
                .write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
            let serve = try ServeProcess(["--config", dir + "/server.json", "--listen", "127.0.0.1:0"], directory: dir, name: "serve-\(warns)")
            let url = try #require(try await serve.listening(), "\(serve.stderr)")
            #expect(try await serve.stop() == 0)
            let port = try #require(url.split(separator: ":").last)
            let line = "warning: public_url http://127.0.0.1:9 names port 9 on this machine, but the server listens on port \(port)"
            #expect(serve.stderr.contains(line) == warns, "\(serve.stderr)")
            #expect(serve.stderr.contains("warning: public_url") == warns)
        }
    }

    @Test("the store flags of token, user and keys: --store-file over --store over $TOKENTOOL_STORE over the config's store")
    func storeFlags() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"public_url":"http://auth.test","store":"config.sqlite","apps":{"a1":{"providers":{"anon-user":{}}}}}"#
            .write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        try "\(dir)/from-file.sqlite\n".write(toFile: dir + "/store", atomically: true, encoding: .utf8)
        let runs: [(arguments: [String], store: String)] = [
            (["--store-file", dir + "/store", "--store", dir + "/flag.sqlite"], "from-file.sqlite"),
            (["--store", dir + "/flag.sqlite"], "flag.sqlite"),
            ([], "variable.sqlite"),
        ]
        for (i, run) in runs.enumerated() {
            let serve = try ServeProcess(
                ["--config", dir + "/server.json", "--listen", "127.0.0.1:0"] + run.arguments, directory: dir,
                environment: ["TOKENTOOL_STORE": "variable.sqlite"], name: "serve\(i)")
            _ = try #require(try await serve.listening(), "\(serve.stderr)")
            #expect(try await serve.stop() == 0)
            #expect(FileManager.default.fileExists(atPath: dir + "/" + run.store), "\(run.arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/config.sqlite"))
    }

    @Test("a bad config exits 2 before listening, naming the file and the member")
    func badConfig() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/server.json"
        try #"{"public_url":"http://a","apps":{"myapp":{"providers":{"oauth2-google":{"client_ids":["c"],"hosted_domian":"x"}}}}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let serve = try ServeProcess(["--config", path, "--listen", "127.0.0.1:0"], directory: dir)
        #expect(try await serve.exitStatus() == 2)
        #expect(serve.stdout.isEmpty)
        #expect(serve.stderr.contains("invalid_configuration: \(path): apps.myapp.providers.oauth2-google.hosted_domian: unknown member"))
    }

    @Test("PostgreSQL without master_key_file exits 2")
    func postgresNeedsMasterKey() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"public_url":"http://a","store":"postgres://nobody@127.0.0.1:1/x","apps":{"a":{}}}"#
            .write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        let serve = try ServeProcess(["--config", dir + "/server.json"], directory: dir)
        #expect(try await serve.exitStatus() == 2)
        #expect(serve.stderr.contains("master_key_file"))
    }
}

@Suite("tokentool user disable|enable")
struct UserDisableCommandTests {
    @Test("disable sets the user's disabled time in the store, enable clears it; an unknown user exits 1", arguments: StoreKind.available)
    func disableEnable(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            var config = SessionConfiguration(issuer: "https://auth.test", audience: "myapp")
            config.masterKey = [UInt8](repeating: 7, count: 32)
            let sessions = SessionManager(store: t.store, configuration: config)
            let (user, _) = try await sessions.ensureUser(id: "alice")
            #expect(user.disabledAt == nil)
            let env: [String: String?] = ["TOKENTOOL_STORE": nil, "TOKENTOOL_STORE_FILE": nil, "TOKENTOOL_MASTER_KEY_FILE": nil]
            func tokentool(_ args: [String]) async throws -> CLI.Result { try await CLI.detached { try CLI.tokentool(args, environment: env) } }
            let disabled = try await tokentool(["user", "disable", "alice", "--store", t.location, "--json"])
            #expect(disabled.status == 0, "\(disabled.stderr)")
            #expect(try JSONValue(parsing: disabled.stdout) == .object(["disabled": true, "user_id": "alice"]))
            #expect(try await sessions.user(id: "alice")?.disabledAt != nil)
            let enabled = try await tokentool(["user", "enable", "alice", "--store", t.location])
            #expect(enabled.status == 0 && enabled.stdout == "enabled user alice\n")
            #expect(try await sessions.user(id: "alice")?.disabledAt == nil)
            let unknown = try await tokentool(["user", "disable", "bob", "--store", t.location])
            #expect(unknown.status == 1 && unknown.stderr.contains("user_not_found"))
        }
    }
}

@Suite("scripts/demo-server.sh")
struct DemoServerScriptTests {
    @Test("starts the server, signs in, reads the profile, refreshes, logs out, stops it")
    func demo() async throws {
        let r = try await CLI.detached { try CLI.run("/bin/bash", [CLI.packageRoot.path + "/scripts/demo-server.sh", CLI.binary.path]) }
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        for expected in [
            "listening on http://127.0.0.1:", "\"deployment_model\":\"GLOBAL\"", "\"type\":\"normal\"", "\n201\n", "\n204\n",
            "\"error_code\":\"InvalidSession\"", "exit status 0",
        ] {
            #expect(r.stdout.contains(expected), "\(expected)")
        }
    }
}

@Suite("tokentool user mfa", .enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"))
struct UserMFACommandTests {
    @Test("status shows TOTP and the recovery codes left; reset removes them; an unknown user exits 1", arguments: StoreKind.available)
    func statusAndReset(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            var config = SessionConfiguration(issuer: "https://auth.test", audience: "myapp")
            config.masterKey = [UInt8](repeating: 7, count: 32)
            let sessions = SessionManager(store: t.store, configuration: config)
            _ = try await sessions.ensureUser(id: "alice")
            let secret = try await sessions.beginTOTP(userID: "alice", issuer: "myapp", email: "alice@example.com").secret
            let now = Int64(Date().timeIntervalSince1970)
            #expect(try await sessions.confirmTOTP(userID: "alice", code: try await ExternalTool.oathtoolCode(secret, at: now)).0 == .accepted)
            let env: [String: String?] = ["TOKENTOOL_STORE": nil, "TOKENTOOL_STORE_FILE": nil, "TOKENTOOL_MASTER_KEY_FILE": nil]
            func tokentool(_ args: [String]) async throws -> CLI.Result { try await CLI.detached { try CLI.tokentool(args, environment: env) } }
            let status = try await tokentool(["user", "mfa", "alice", "--store", t.location, "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(
                try JSONValue(parsing: status.stdout)
                    == .object([
                        "user_id": "alice", "totp": true, "totp_pending": false, "passkeys": [], "recovery_codes_left": 10, "locked_until": .null,
                    ]))
            let reset = try await tokentool(["user", "mfa", "reset", "alice", "--store", t.location])
            #expect(reset.status == 0 && reset.stdout == "removed the second factors of user alice\n", "\(reset.stderr)")
            #expect(reset.stderr.contains("notice: second factors of user alice removed"))
            #expect(try await sessions.mfaStatus(userID: "alice") == MFAStatus(totp: false, passkeys: 0, recoveryCodesLeft: 0))
            let text = try await tokentool(["user", "mfa", "alice", "--store", t.location])
            #expect(text.stdout == "user alice: TOTP off, 0 passkeys, 0 recovery codes left\n")
            let unknown = try await tokentool(["user", "mfa", "reset", "bob", "--store", t.location])
            #expect(unknown.status == 1 && unknown.stderr.contains("user_not_found"))
        }
    }

    @Test("status lists a user's passkeys; reset removes them with the rest; another user's stay", arguments: StoreKind.available)
    func passkeys(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = SessionManager(store: t.store, configuration: SessionConfiguration(issuer: "https://auth.test", audience: "myapp"))
            for user in ["alice", "bob"] {
                _ = try await sessions.ensureUser(id: user)
                let passkey = PasskeyRecord(
                    id: "pk-" + user, app: "", userID: user, name: user + "'s laptop", publicKey: "{}", algorithm: "ES256", signCount: 0,
                    createdAt: 100)
                #expect(try await t.store.transaction { tx in try await tx.insertPasskey(passkey) })
            }
            let env: [String: String?] = ["TOKENTOOL_STORE": nil, "TOKENTOOL_STORE_FILE": nil, "TOKENTOOL_MASTER_KEY_FILE": nil]
            func tokentool(_ args: [String]) async throws -> CLI.Result { try await CLI.detached { try CLI.tokentool(args, environment: env) } }
            let text = try await tokentool(["user", "mfa", "alice", "--store", t.location])
            #expect(
                text.stdout == "user alice: TOTP off, 1 passkey, 0 recovery codes left\n  passkey pk-alice \"alice's laptop\"\n", "\(text.stderr)")
            let json = try await tokentool(["user", "mfa", "alice", "--store", t.location, "--json"])
            #expect(try JSONValue(parsing: json.stdout).objectValue?["passkeys"] == .array([.object(["id": "pk-alice", "name": "alice's laptop"])]))
            let reset = try await tokentool(["user", "mfa", "reset", "alice", "--store", t.location])
            #expect(reset.status == 0 && reset.stdout == "removed the second factors of user alice\n", "\(reset.stderr)")
            #expect(try await sessions.passkeys(userID: "alice").isEmpty)
            #expect(try await sessions.passkeys(userID: "bob").map(\.id) == ["pk-bob"])
            #expect(try await sessions.hasSecondFactor(userID: "bob"))
        }
    }
}
