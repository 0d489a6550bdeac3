import CLIHarness
import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

/// Runs the built `tokentool` binary against the stand-in and checks stdout, stderr and exit codes.
@Suite struct IdpCommandTests {
    struct Run {
        var status: Int32; var stdout: String; var stderr: String
        var json: JSONObject? { (try? JSONValue(parsing: stdout))?.objectValue }
        var errorCode: String? { json?["error"]?.objectValue?["code"]?.stringValue }
        var identity: JSONObject? { json?["identity"]?.objectValue }
    }

    /// The built tokentool, through the shared harness.
    func run(_ args: [String], stdin: String? = nil) async throws -> Run {
        let r = try await CLI.detached { try CLI.tokentool(args, stdin: stdin) }
        return Run(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    func tempFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("idp-test-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test
    func google() async throws {
        try await withStandIn { standIn, _ in
            let s = standIn.settings
            let ok = try await run([
                "idp", "google", "--client-id", s.googleClientID, "--jwks", standIn.googleJWKSURL, "--json", try standIn.idToken("google"),
            ])
            #expect(ok.status == 0, "\(ok.stdout) \(ok.stderr)")
            #expect(ok.json?["valid"] == .bool(true))
            #expect(ok.identity?["provider"] == "google")
            #expect(ok.identity?["subject"] == "110000000000000000001")
            #expect(ok.identity?["email_verified"] == .bool(true))
            #expect(ok.stdout.split(separator: "\n").count == 1)

            let wrongAud = try await run([
                "idp", "google", "--client-id", "other", "--jwks", standIn.googleJWKSURL, "--json", try standIn.idToken("google"),
            ])
            #expect(wrongAud.status == 1)
            #expect(wrongAud.json?["valid"] == .bool(false))
            #expect(wrongAud.errorCode == "invalid_audience")

            let human = try await run(
                ["idp", "google", "--client-id", "other", "--jwks", standIn.googleJWKSURL, "-"], stdin: try standIn.idToken("google") + "\n")
            #expect(human.status == 1)
            #expect(human.stderr.hasPrefix("error: invalid_audience: "))
            #expect(human.stdout.isEmpty)

            let secretFile = try tempFile(s.googleClientSecret + "\n")
            let code = try await run([
                "idp", "google", "--code", "standin-google-code", "--client-id", s.googleClientID, "--client-secret-file", secretFile,
                "--token-url", standIn.googleTokenURL, "--jwks", standIn.googleJWKSURL, "--json",
            ])
            #expect(code.status == 0, "\(code.stdout) \(code.stderr)")
            #expect(code.identity?["subject"] == "110000000000000000001")
            let bad = try await run([
                "idp", "google", "--code", "nope", "--client-id", s.googleClientID, "--client-secret-file", secretFile,
                "--token-url", standIn.googleTokenURL, "--jwks", standIn.googleJWKSURL, "--json",
            ])
            #expect(bad.status == 1)
            #expect(bad.errorCode == "invalid_grant")

            standIn.setBehavior(.fail(status: 500), for: "/oauth2/v3/certs")
            let down = try await run([
                "idp", "google", "--client-id", s.googleClientID, "--jwks", standIn.googleJWKSURL, "--json", try standIn.idToken("google"),
            ])
            #expect(down.status == 2)
            #expect(down.errorCode == "provider_unavailable")
        }
    }

    /// `tokentool verify --jwks URL` fetches the set through the Identity module (docs/cli.md: --jwks FILE|URL).
    @Test
    func verifyWithJWKSURL() async throws {
        try await withStandIn { standIn, _ in
            let token = try standIn.idToken("google")
            let ok = try await run(["verify", "--jwks", standIn.googleJWKSURL, "--json", token])
            #expect(ok.status == 0, "\(ok.stdout) \(ok.stderr)")
            #expect(ok.json?["valid"] == .bool(true))
            #expect(ok.json?["payload"]?.objectValue?["sub"] == "110000000000000000001")

            standIn.setBehavior(.fail(status: 500), for: "/oauth2/v3/certs")
            let down = try await run(["verify", "--jwks", standIn.googleJWKSURL, "--json", token])
            #expect(down.status == 2)
            #expect(down.errorCode == "provider_unavailable")
        }
    }

    @Test
    func apple() async throws {
        try await withStandIn { standIn, _ in
            let s = standIn.settings
            let token = try standIn.idToken("apple", ["nonce": .string(AppleProviderTests.abcSHA256)])
            let ok = try await run([
                "idp", "apple", "--client-id", s.appleClientID, "--nonce", "abc", "--jwks", standIn.appleJWKSURL, "--json", token,
            ])
            #expect(ok.status == 0, "\(ok.stdout) \(ok.stderr)")
            #expect(ok.identity?["email_verified"] == .bool(true))
            #expect(ok.identity?["raw_claims"]?.objectValue?["real_user_status"] == .int(2))
            let badNonce = try await run([
                "idp", "apple", "--client-id", s.appleClientID, "--nonce", "abd", "--jwks", standIn.appleJWKSURL, "--json", token,
            ])
            #expect(badNonce.status == 1)
            #expect(badNonce.errorCode == "invalid_nonce")

            let keyFile = try tempFile(try standIn.appleClientSecretKey.pem(includePrivate: true))
            let common = [
                "--client-id", s.appleClientID, "--team-id", s.appleTeamID, "--key-id", s.appleKeyID, "--private-key-file", keyFile,
                "--token-url", standIn.appleTokenURL, "--revoke-url", standIn.appleRevokeURL, "--jwks", standIn.appleJWKSURL, "--json",
            ]
            let code = try await run(["idp", "apple", "--code", "standin-apple-code"] + common)
            #expect(code.status == 0, "\(code.stdout) \(code.stderr)")
            #expect(code.json?["tokens"]?.objectValue?["refresh_token"] == "r.standin-apple-refresh")
            let revoke = try await run(["idp", "apple", "--revoke", "r.standin-apple-refresh"] + common)
            #expect(revoke.status == 0)
            #expect(revoke.json == ["revoked": true])
            #expect(standIn.revokedTokens == ["r.standin-apple-refresh"])
        }
    }

    @Test
    func facebook() async throws {
        try await withStandIn { standIn, _ in
            let s = standIn.settings
            let secretFile = try tempFile(s.facebookAppSecret)
            let args = ["idp", "facebook", "--app-id", s.facebookAppID, "--app-secret-file", secretFile, "--graph-url", standIn.graphURL, "--json"]
            let ok = try await run(args + ["standin-facebook-user-token"])
            #expect(ok.status == 0, "\(ok.stdout) \(ok.stderr)")
            #expect(ok.identity?["subject"] == "10000000000000042")
            #expect(ok.identity?["name"] == "Stand In")
            let foreign = try await run(args + ["standin-foreign-app-token"])
            #expect(foreign.status == 1)
            #expect(foreign.errorCode == "foreign_app")
            let limited = try await run(args + ["--limited-login", "--jwks", standIn.facebookJWKSURL, try standIn.idToken("facebook")])
            #expect(limited.status == 0, "\(limited.stdout) \(limited.stderr)")
            let wrongSecret = try await run([
                "idp", "facebook", "--app-id", s.facebookAppID, "--app-secret-file", try tempFile("nope"),
                "--graph-url", standIn.graphURL, "--json", "standin-facebook-user-token",
            ])
            #expect(wrongSecret.status == 2)
            #expect(wrongSecret.errorCode == "invalid_client")
        }
    }

    @Test
    func customJWT() async throws {
        try await withStandIn { standIn, _ in
            let s = standIn.settings
            let ok = try await run([
                "idp", "jwt", "--jwks", standIn.customJWKSURL, "--iss", s.customIssuer, "--aud", s.customAudience,
                "--map", "name=user_data.name", "--map", "email=user_data.email", "--require", "email", "--json",
                try standIn.idToken("custom"),
            ])
            #expect(ok.status == 0, "\(ok.stdout) \(ok.stderr)")
            #expect(ok.identity?["name"] == "Stand In")
            #expect(ok.identity?["email"] == "standin@example.com")
            let missing = try await run([
                "idp", "jwt", "--jwks", standIn.customJWKSURL, "--iss", s.customIssuer, "--aud", s.customAudience,
                "--require", "email", "--json", try standIn.idToken("custom"),
            ])
            #expect(missing.status == 1)
            #expect(missing.errorCode == "missing_claim")
            let jwksFile = try tempFile(standIn.jwksJSON)
            let fromFile = try await run([
                "idp", "jwt", "--jwks", jwksFile, "--iss", s.customIssuer, "--aud", s.customAudience, "--json",
                try standIn.idToken("custom"),
            ])
            #expect(fromFile.status == 0)
            let badMap = try await run([
                "idp", "jwt", "--jwks", jwksFile, "--iss", s.customIssuer, "--aud", s.customAudience,
                "--map", "nickname=x", "--json", try standIn.idToken("custom"),
            ])
            #expect(badMap.status == 2)
            #expect(badMap.errorCode == "invalid_input")
        }
    }

    /// `idp jwt --secret-file` reads the secret as `verify --secret-file` does: a file ending in a
    /// newline is the same key (before, the newline became part of the key).
    /// Auth codes come from standard input or a file, off the command line.
    @Test
    func googleCodeFromStandardInputOrAFile() async throws {
        try await withStandIn { standIn, _ in
            let s = standIn.settings
            let secretFile = try tempFile(s.googleClientSecret + "\n")
            let codeFile = try tempFile("standin-google-code\n")
            let base = [
                "idp", "google", "--client-id", s.googleClientID, "--client-secret-file", secretFile,
                "--token-url", standIn.googleTokenURL, "--jwks", standIn.googleJWKSURL, "--json",
            ]
            let fromStdin = try await run(base + ["--code", "-"], stdin: "standin-google-code\n")
            #expect(fromStdin.status == 0, "\(fromStdin.stdout) \(fromStdin.stderr)")
            let fromFile = try await run(base + ["--code", "@" + codeFile])
            #expect(fromFile.status == 0, "\(fromFile.stdout) \(fromFile.stderr)")
            #expect(fromFile.identity?["subject"] == "110000000000000000001")
        }
    }

    @Test
    func customJWTSecretFileDropsTheTrailingNewline() async throws {
        let secret = Array("idp-jwt-secret-of-more-than-32-bytes".utf8)
        let now = Int64(Date().timeIntervalSince1970)
        let token = try JWTSigner(key: JWK(hmacSecret: secret), algorithm: .hs256)
            .sign(["iss": "https://issuer.test", "aud": "app", "sub": "s-1", "iat": .int(now), "exp": .int(now + 600)])
        let file = try tempFile(String(decoding: secret, as: UTF8.self) + "\n")
        defer { try? FileManager.default.removeItem(atPath: file) }
        for command in [["idp", "jwt", "--iss", "https://issuer.test", "--aud", "app"], ["verify", "--iss", "https://issuer.test", "--aud", "app"]] {
            let r = try await run(command + ["--secret-file", file, "--json", token])
            #expect(r.status == 0, "\(command[0]): \(r.stdout) \(r.stderr)")
        }
    }

    /// `idp jwt --key` reads a key file as `verify` does (a private key's public half is used), and
    /// `--leeway` is a duration: a token expired 90 s ago passes with `--leeway 2m`, not with `1m`.
    @Test
    func customJWTReadsKeyFilesAndADurationLeeway() async throws {
        let key = try JWK.generate(curve: .p256)
        let now = Int64(Date().timeIntervalSince1970)
        let token = try JWTSigner(key: key).sign([
            "iss": "https://issuer.test", "aud": "app", "sub": "s-1", "iat": .int(now - 700), "exp": .int(now - 300),
        ])
        let file = try tempFile(try key.pem())
        defer { try? FileManager.default.removeItem(atPath: file) }
        let base = ["idp", "jwt", "--iss", "https://issuer.test", "--aud", "app", "--key", file, "--json", "--now", String(now)]
        let late = try await run(base + ["--leeway", "1m", token])
        #expect(late.status == 1 && late.stdout.contains("\"code\":\"expired\""), "\(late.stdout) \(late.stderr)")
        // Minutes of margin both ways: a loaded machine once took over 30 s between the runs.
        let lenient = try await run(base + ["--leeway", "1h", token])
        #expect(lenient.status == 0 && lenient.stdout.contains("\"subject\":\"s-1\""), "\(lenient.stdout) \(lenient.stderr)")
        let both = try await run(base + ["--jwks", file, token])
        #expect(both.status == 2, "\(both.stdout) \(both.stderr)")
    }
}
