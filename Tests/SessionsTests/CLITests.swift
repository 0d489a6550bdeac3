import CLIHarness
import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The session commands of the built `tokentool` binary, end to end, on both stores:
/// stdout, stderr and exit codes as docs/sessions.md and docs/cli.md specify them.
@Suite struct CLITests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var json: JSONObject {
            get throws {
                guard case .object(let o) = try JSONValue(parsing: stdout) else { throw HarnessError("stdout is not a JSON object: \(stdout)") }
                return o
            }
        }
        var errorCode: String? { (try? json)?["error"]?.objectValue?["code"]?.stringValue }
    }

    /// The built tokentool, through the shared harness, without the caller's store settings.
    static func tokentool(_ args: [String], stdin: String? = nil) async throws -> Run {
        let r = try await CLI.detached {
            try CLI.tokentool(
                args, stdin: stdin, environment: ["TOKENTOOL_STORE": nil, "TOKENTOOL_STORE_FILE": nil, "TOKENTOOL_MASTER_KEY_FILE": nil])
        }
        return Run(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    @Test(arguments: StoreKind.available)
    func sessionLifecycleEndToEnd(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let s = ["--store", t.location]
            let issue = try await Self.tokentool(["token", "issue"] + s + ["--sub", "alice", "--json"])
            #expect(issue.status == 0, "\(issue.stderr)")
            let pair = try issue.json
            #expect(Set(pair.map(\.key)) == ["access_token", "refresh_token", "token_type", "expires_in", "user_id"])
            #expect(pair["token_type"] == "Bearer" && pair["expires_in"] == 1800 && pair["user_id"] == "alice")
            let rt1 = try #require(pair["refresh_token"]?.stringValue)
            let at1 = try #require(pair["access_token"]?.stringValue)

            let introspect = try await Self.tokentool(["token", "introspect"] + s + ["--json", at1])
            #expect(introspect.status == 0)
            #expect(try introspect.json["active"] == true && introspect.json["sub"] == "alice")

            // Refresh, reading the token from standard input.
            let refresh = try await Self.tokentool(["token", "refresh"] + s + ["--json", "-"], stdin: rt1 + "\n")
            #expect(refresh.status == 0, "\(refresh.stderr)")
            let rt2 = try #require(try refresh.json["refresh_token"]?.stringValue)
            #expect(rt2 != rt1)

            // A retry within the grace interval gets the same successor…
            let retry = try await Self.tokentool(["token", "refresh"] + s + ["--json", rt1])
            #expect(retry.status == 0, "\(retry.stderr)")
            #expect(try retry.json["refresh_token"]?.stringValue == rt2)
            // …but a reuse outside it (no grace) is caught and the session revoked.
            let reuse = try await Self.tokentool(["token", "refresh"] + s + ["--grace", "0", "--json", rt1])
            #expect(reuse.status == 1)
            #expect(reuse.errorCode == "refresh_token_reused")
            let afterReuse = try await Self.tokentool(["token", "refresh"] + s + [rt2])
            #expect(afterReuse.status == 1)
            #expect(afterReuse.stdout.isEmpty && afterReuse.stderr.hasPrefix("error: refresh_token_revoked: "))
            let inactive = try await Self.tokentool(["token", "introspect"] + s + ["--json", at1])
            #expect(inactive.status == 1 && inactive.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"active":false}"#)

            // Keys: rotate, then the JWKS publishes the new and the retired key.
            let rotate = try await Self.tokentool(["keys", "rotate"] + s + ["--json"])
            #expect(rotate.status == 0)
            let kid = try #require(try rotate.json["kid"]?.stringValue)
            let jwks = try await Self.tokentool(["keys", "jwks"] + s)
            #expect(jwks.status == 0)
            let set = try JWKSet(json: jwks.stdout)
            #expect(set.keys.count == 2 && set.keys.contains { $0.keyID == kid } && set.keys.allSatisfy { !$0.isPrivate })
            #expect(try UnverifiedToken(at1).header?.keyID.map { id in set.keys.contains { $0.keyID == id } } == true)

            // Logout of a fresh session, purge, delete the user.
            let second = try await Self.tokentool(["token", "issue"] + s + ["--sub", "alice", "--json"])
            let rt3 = try #require(try second.json["refresh_token"]?.stringValue)
            #expect(try await Self.tokentool(["token", "revoke"] + s + [rt3]).status == 0)
            let logout = try await Self.tokentool(["token", "refresh"] + s + ["--json", rt3])
            #expect(logout.status == 1 && logout.errorCode == "refresh_token_revoked", "\(logout.stdout) \(logout.stderr)")
            let purge = try await Self.tokentool(["token", "purge"] + s + ["--json"])
            let purged = try purge.json["sessions"]
            #expect(purge.status == 0 && purged == 2)
            let delete = try await Self.tokentool(["user", "delete"] + s + ["alice"])
            #expect(delete.status == 0)
            let again = try await Self.tokentool(["user", "delete"] + s + ["--json", "alice"])
            #expect(again.status == 1 && again.errorCode == "user_not_found")
        }
    }

    @Test(arguments: StoreKind.available)
    func signInWithAnIdentityFile(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("identity-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            // The shape `tokentool idp … --json` prints.
            try
                #"{"valid":true,"identity":{"provider":"google","subject":"10769150350006150715113082367","email":"a@example.com","email_verified":true}}"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            let first = try await Self.tokentool(["token", "issue", "--store", t.location, "--identity-json", file, "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            let again = try await Self.tokentool(["token", "issue", "--store", t.location, "--identity-json", file, "--json"])
            #expect(try first.json["user_id"] == again.json["user_id"])
            let both = try await Self.tokentool(["token", "issue", "--store", t.location, "--sub", "x", "--identity-json", file])
            #expect(both.status == 2)
        }
    }

    /// The server's custom-token login keys an identity by (provider, issuer, sub); so does the CLI
    /// path: `idp jwt --json` prints the issuer and `token issue --identity-json` keys by it.
    @Test(arguments: StoreKind.available)
    func identityFilesKeepTheirIssuer(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("issuers-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let secret = "idp-jwt-secret-of-more-than-32-bytes"
            try (secret + "\n").write(toFile: dir + "/secret", atomically: true, encoding: .utf8)
            let now = Int64(Date().timeIntervalSince1970)
            var users: [String] = []
            for issuer in ["https://a.issuer.test", "https://b.issuer.test", "https://a.issuer.test"] {
                let token = try JWTSigner(key: JWK(hmacSecret: Array(secret.utf8)), algorithm: .hs256)
                    .sign(["iss": .string(issuer), "aud": "app", "sub": "4711", "iat": .int(now), "exp": .int(now + 600)])
                let idp = try await Self.tokentool([
                    "idp", "jwt", "--iss", "https://a.issuer.test", "--iss", "https://b.issuer.test", "--aud", "app",
                    "--secret-file", dir + "/secret", "--json", token,
                ])
                #expect(idp.status == 0, "\(idp.stderr)")
                #expect(try idp.json["identity"]?.objectValue?["issuer"] == .string(issuer))
                try idp.stdout.write(toFile: dir + "/identity.json", atomically: true, encoding: .utf8)
                let issued = try await Self.tokentool(["token", "issue", "--store", t.location, "--identity-json", dir + "/identity.json", "--json"])
                #expect(issued.status == 0, "\(issued.stderr)")
                users.append(try issued.json["user_id"]?.stringValue ?? "")
            }
            #expect(users[0] != users[1], "sub 4711 of two issuers is two users")
            #expect(users[0] == users[2], "the same issuer's sub 4711 is one user")
        }
    }

    @Test func unreachableStoresExitTwo() async throws {
        let dir = "/nonexistent-\(UUID().uuidString)/tokentool.sqlite"
        let sqlite = try await Self.tokentool(["token", "issue", "--store", dir, "--sub", "a"])
        #expect(sqlite.status == 2 && sqlite.stderr.hasPrefix("error: store_unavailable: "))
        let pg = try await Self.tokentool(["keys", "jwks", "--store", "postgres://postgres@127.0.0.1:1/none"])
        #expect(pg.status == 2 && pg.stderr.hasPrefix("error: store_unavailable: "))
        let json = try await Self.tokentool(["token", "refresh", "--store", dir, "--json", Base64URL.encode([UInt8](repeating: 1, count: 32))])
        #expect(json.status == 2 && json.errorCode == "store_unavailable")
    }
}
