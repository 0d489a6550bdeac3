import Foundation
import Testing

/// `tokentool verify` against spec examples (RFC 7515 A.1, RFC 7520 §4.3) and keys made by openssl.
@Suite struct VerifyTests {
    let before = String(RFC7515A1.exp - 60)

    @Test func rfc7515HS256VerifiesWithTheJWK() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        let r = try s.tokentool("verify", "--key", "key.jwk", "--now", before, "--json", RFC7515A1.token)
        #expect(r.status == 0, "\(r)")
        let o = try #require(r.json)
        #expect(Set(o.keys) == ["valid", "header", "payload", "kid"])
        #expect(o["valid"] as? Bool == true)
        #expect((o["header"] as? [String: Any])?["alg"] as? String == "HS256")
        #expect((o["payload"] as? [String: Any])?["iss"] as? String == "joe")
        #expect(o["kid"] is NSNull)  // the RFC's key has no kid

        let human = try s.tokentool("verify", "--key", "key.jwk", "--now", before, RFC7515A1.token)
        #expect(human.status == 0)
        #expect(human.stdout.hasPrefix("valid\n"))
        #expect(human.stdout.contains("64-byte secret"))
        #expect(human.stdout.contains("key.jwk"))
        #expect(human.stdout.contains("expires in 1m"))
        #expect(human.stderr.isEmpty)
    }

    /// Two kidless keys allow ES256: the output names the one that verified (the verifier says
    /// which), not "one of 2 keys".
    @Test func namesTheKeyThatVerified() throws {
        let s = try Scratch()
        // PEM keys carry no kid, so neither does the token.
        for name in ["a", "b"] {
            _ = try s.sh(
                "openssl ecparam -name prime256v1 -genkey -noout -out \(name).pem && openssl ec -in \(name).pem -pubout -out \(name).pub.pem 2>/dev/null"
            )
        }
        let signed = try s.tokentool("sign", "--key", "b.pem", "--set", "sub=42")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signed.status == 0 && !token.isEmpty, "\(signed)")
        let r = try s.tokentool("verify", "--key", "a.pub.pem", "--key", "b.pub.pem", token)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("(from b.pub.pem)") && !r.stdout.contains("a.pub.pem") && !r.stdout.contains("one of"), "\(r)")
    }

    @Test func rfc7515HS256VerifiesWithASecretFile() throws {
        let s = try Scratch()
        // The RFC's key bytes, decoded by base64(1), not by JOSE.
        try s.sh("printf '%s' 'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ+EstJQLr/T+1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow==' | base64 -d > secret")
        let r = try s.tokentool("verify", "--secret-file", "secret", "--now", before, RFC7515A1.token)
        #expect(r.status == 0, "\(r)")
    }

    @Test func expiredIsExitOneWithTheContractShape() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        // RFC 7519 §4.1.4: on or after exp the token is expired.
        let r = try s.tokentool("verify", "--key", "key.jwk", "--now", String(RFC7515A1.exp), "--json", RFC7515A1.token)
        #expect(r.status == 1, "\(r)")
        #expect(r.json?["valid"] as? Bool == false)
        let error = try #require(r.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "expired")
        #expect((error["message"] as? String)?.contains("2011-03-22T18:43:00Z") == true)
        #expect(r.stderr.isEmpty)
        let human = try s.tokentool("verify", "--key", "key.jwk", RFC7515A1.token)  // real clock: long expired
        #expect(human.status == 1)
        #expect(human.stdout.isEmpty)
        #expect(human.stderr == "error: expired: token expired at 2011-03-22T18:43:00Z\n")
        // Leeway of a minute accepts it at exp + 30s.
        #expect(try s.tokentool("verify", "--key", "key.jwk", "--now", String(RFC7515A1.exp + 30), "--leeway", "60", RFC7515A1.token).status == 0)
        #expect(try s.tokentool("verify", "--key", "key.jwk", "--now", String(RFC7515A1.exp + 30), "--leeway", "1m", RFC7515A1.token).status == 0)
    }

    @Test(
        arguments: [
            (["--iss", "joe"], 0, nil),
            (["--iss", "bob"], 1, "invalid_issuer"),
            (["--iss", "bob", "--iss", "joe"], 0, nil),
            (["--aud", "api"], 1, "missing_claim"),
            (["--require", "sub"], 1, "missing_claim"),
            (["--require", "http://example.com/is_root"], 0, nil),
            (["--typ", "JWT"], 0, nil),
            (["--typ", "at+jwt"], 1, "invalid_claim"),
            (["--alg", "HS256"], 0, nil),
            (["--alg", "HS512"], 1, "algorithm_not_allowed"),
            (["--alg", "RS256"], 1, "algorithm_not_allowed"),
            (["--alg", "none"], 2, "invalid_input"),
            (["--leeway", "soon"], 2, "invalid_input"),
        ] as [([String], Int32, String?)])
    func claimAndAlgorithmChecks(flags: [String], status: Int32, code: String?) throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        let r = try s.tokentool(args: ["verify", "--key", "key.jwk", "--now", before, "--json"] + flags + [RFC7515A1.token])
        #expect(r.status == status, "\(flags): \(r)")
        #expect(r.errorCode == code, "\(flags): \(r)")
    }

    @Test func tamperedPayloadIsInvalidSignature() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        let forged = "\(RFC7515A1.header).\(b64url(#"{"iss":"joe","exp":1300819380,"http://example.com/is_root":false}"#)).\(RFC7515A1.signature)"
        let r = try s.tokentool("verify", "--key", "key.jwk", "--now", before, "--json", forged)
        #expect(r.status == 1)
        #expect(r.errorCode == "invalid_signature")
    }

    @Test func rfc7520ES512SignatureOnly() throws {
        let s = try Scratch()
        try s.write("p521.jwk", RFC7520ES512.publicJWK)
        let r = try s.tokentool("verify", "--jws", "--json", "--key", "p521.jwk", RFC7520ES512.token)
        #expect(r.status == 0, "\(r)")
        let o = try #require(r.json)
        #expect(o["valid"] as? Bool == true)
        #expect(o["payload_b64"] as? String == RFC7520ES512.payloadB64)
        #expect((o["header"] as? [String: Any])?["kid"] as? String == "bilbo.baggins@hobbiton.example")
        let human = try s.tokentool("verify", "--jws", "--key", "p521.jwk", RFC7520ES512.token)
        #expect(human.stdout.contains(RFC7520ES512.payloadText))
        #expect(human.stdout.contains("claims not checked"))
        // Without --jws the payload must be a JSON object of claims.
        let claims = try s.tokentool("verify", "--json", "--key", "p521.jwk", RFC7520ES512.token)
        #expect(claims.status == 1)
        #expect(claims.errorCode == "malformed")
        // --jws with claim checks is a usage error: they would not be checked.
        let mixed = try s.tokentool("verify", "--jws", "--iss", "x", "--key", "p521.jwk", RFC7520ES512.token)
        #expect(mixed.status == 2)
    }

    @Test func jwksFileSelectsByKid() throws {
        let s = try Scratch()
        try s.write("jwks.json", #"{"keys":[\#(RFC7520ES512.publicJWK)]}"#)
        #expect(try s.tokentool("verify", "--jws", "--jwks", "jwks.json", RFC7520ES512.token).status == 0)
        // Same key under another kid: the token's kid matches nothing, and there is no fall-back.
        try s.write("other.json", #"{"keys":[\#(RFC7520ES512.publicJWK.replacingOccurrences(of: "bilbo.baggins@hobbiton.example", with: "frodo"))]}"#)
        let r = try s.tokentool("verify", "--jws", "--json", "--jwks", "other.json", RFC7520ES512.token)
        #expect(r.status == 1)
        #expect(r.errorCode == "key_not_found")
    }

    @Test func kidlessKeysNeedAnExplicitKid() throws {
        let s = try Scratch()
        // An openssl key (PEM carries no kid) and a token whose header names one.
        try s.sh("openssl genpkey -algorithm ed25519 -out key.pem && openssl pkey -in key.pem -pubout -out pub.pem")
        let token = try s.tokentool("sign", "--key", "key.pem", "--kid", "2027-01", "--set", "sub=1").stdout.trimmingCharacters(in: .newlines)
        let refused = try s.tokentool("verify", "--json", "--key", "pub.pem", token)
        #expect(refused.status == 1)
        #expect(refused.errorCode == "key_not_found")
        #expect(
            (refused.json?["error"] as? [String: Any])?["message"] as? String
                == #"no trusted key has kid "2027-01"; pub.pem has no kid: pass --kid "2027-01" to use it for this token"#)
        let paired = try s.tokentool("verify", "--json", "--key", "pub.pem", "--kid", "2027-01", token)
        #expect(paired.status == 0, "\(paired)")
        #expect(paired.json?["kid"] as? String == "2027-01")
        // --kid names one kid: a token naming another is still refused.
        #expect(try s.tokentool("verify", "--key", "pub.pem", "--kid", "other", token).status == 1)
        // A secret file, the same way.
        try s.write("secret", String(repeating: "s", count: 32))
        let hs = try s.tokentool("sign", "--secret-file", "secret", "--kid", "mac", "--set", "sub=1").stdout.trimmingCharacters(in: .newlines)
        #expect(try s.tokentool("verify", "--secret-file", "secret", hs).status == 1)
        #expect(try s.tokentool("verify", "--secret-file", "secret", "--kid", "mac", hs).status == 0)
    }

    @Test func configurationErrorsExitTwo() throws {
        let s = try Scratch()
        try s.write("bad.json", #"{"keys": 5}"#)
        try s.write("junk.pem", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        try s.write("short", "too short")
        // (--jwks URL is fetched in the full build and refused in the core-only one; its tests run
        // against a stand-in server on 127.0.0.1 in IdentityTests, never against the internet.)
        for flags in [[String](), ["--key", "missing.pem"], ["--jwks", "bad.json"], ["--key", "junk.pem"], ["--secret-file", "short"]] {
            let r = try s.tokentool(args: ["verify", "--json"] + flags + [RFC7515A1.token])
            #expect(r.status == 2, "\(flags): \(r)")
            #expect(r.json?["valid"] as? Bool == false, "\(flags): \(r)")
            #expect(r.errorCode == "invalid_input" || r.errorCode == "invalid_key", "\(flags): \(r)")
            let human = try s.tokentool(args: ["verify"] + flags + [RFC7515A1.token])
            #expect(human.status == 2)
            #expect(human.stderr.hasPrefix("error: invalid_"), "\(flags): \(human)")
        }
        #expect(try s.tokentool("verify", "--key").status == 2)  // ArgumentParser usage error
    }

    @Test func tokenFromStandardInput() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        let r = try s.tokentool("verify", "--key", "key.jwk", "--now", before, "-", stdin: RFC7515A1.token + "\n")
        #expect(r.status == 0, "\(r)")
        let pasted = try s.tokentool("verify", "--key", "key.jwk", "--now", before, "--json", "-", stdin: "Bearer " + RFC7515A1.token + "\n")
        #expect(pasted.status == 1)
        #expect(pasted.errorCode == "malformed")
    }
}
