import CLIHarness
import Foundation
import Testing

/// `keygen`, `jwk`, `jwks`. Keys are checked with openssl and python3 joserfc (independent
/// implementations) and with the RFC 8037 A.3 thumbprint.
@Suite struct KeyCommandTests {
    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test(
        arguments: [
            (["--type", "rsa"], "RSA", nil),
            (["--type", "rsa", "--bits", "3072"], "RSA", nil),
            (["--type", "ec"], "EC", "P-256"),
            (["--type", "ec", "--curve", "P-384"], "EC", "P-384"),
            (["--type", "ec", "--alg", "ES512"], "EC", "P-521"),
            (["--type", "okp"], "OKP", "Ed25519"),
            (["--type", "oct"], "oct", nil),
        ] as [([String], String, String?)])
    func keygenWritesPrivateKeysWithMode0600(flags: [String], kty: String, crv: String?) throws {
        let s = try Scratch()
        let r = try s.tokentool(args: ["keygen"] + flags + ["--out", "key.jwk"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("mode 0600"))
        #expect(try Self.mode(s.path("key.jwk")) == 0o600)
        let jwk = try #require(try JSONSerialization.jsonObject(with: readAll(s.url.appendingPathComponent("key.jwk"))) as? [String: Any])
        #expect(jwk["kty"] as? String == kty)
        #expect(jwk["crv"] as? String == crv)
        if kty == "oct" {
            #expect(jwk["k"] != nil)
            #expect(jwk["kid"] == nil)
        } else {
            #expect(jwk["d"] != nil)
            // The default kid is the RFC 7638 thumbprint, as joserfc computes it.
            let expected = try s.sh(
                "python3 -c 'from joserfc.jwk import JWKRegistry; import json; print(JWKRegistry.import_key(json.load(open(\"key.jwk\"))).thumbprint())'"
            )
            #expect(jwk["kid"] as? String == expected.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        if flags.contains("--bits"), flags.contains("3072") {
            // openssl reads the exported PEM and agrees on the size.
            #expect(try s.tokentool("jwk", "--out", "key.pem", "key.jwk").status == 0)
            #expect(try Self.mode(s.path("key.pem")) == 0o600)
            #expect(try s.sh("openssl pkey -in key.pem -noout -text").contains("3072 bit"))
        }
    }

    @Test func keygenPEMIsReadByOpenSSL() throws {
        let s = try Scratch()
        let r = try s.tokentool("keygen", "--type", "ec", "--curve", "P-384", "--format", "pem", "--out", "key.pem", "--public-out", "pub.pem")
        #expect(r.status == 0, "\(r)")
        #expect(try Self.mode(s.path("key.pem")) == 0o600)
        #expect(try Self.mode(s.path("pub.pem")) == 0o644)
        let text = try s.sh("openssl pkey -in key.pem -noout -text")
        #expect(text.contains("secp384r1") || text.contains("P-384"))
        // The public file is the public half of the private one, by openssl's reckoning.
        #expect(try s.sh("openssl pkey -in key.pem -pubout") == s.read("pub.pem"))
    }

    @Test func keygenNeverPrintsPrivateKeysUnasked() throws {
        let s = try Scratch()
        let r = try s.tokentool("keygen", "--type", "ec")
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("--out"))
        #expect(r.stderr.contains("--print-private"))
        let printed = try s.tokentool("keygen", "--type", "okp", "--print-private")
        #expect(printed.status == 0)
        #expect(printed.stdout.contains("\"d\""))
        // Never overwrites a key without --force.
        try s.write("key.jwk", "keep me")
        let again = try s.tokentool("keygen", "--type", "ec", "--out", "key.jwk")
        #expect(again.status == 2)
        #expect(try s.read("key.jwk") == "keep me")
        #expect(try s.tokentool("keygen", "--type", "ec", "--out", "key.jwk", "--force").status == 0)
        // --force replaces a file, never a directory; reading one says what it is.
        try FileManager.default.createDirectory(atPath: s.path("keys"), withIntermediateDirectories: false)
        let onDirectory = try s.tokentool("keygen", "--type", "ec", "--out", "keys", "--force")
        #expect(onDirectory.status == 2)
        #expect(onDirectory.stderr == "error: invalid_input: cannot write keys: is a directory\n", "\(onDirectory)")
        #expect(FileManager.default.fileExists(atPath: s.path("keys")))
        let reading = try s.tokentool("verify", "--key", "keys", RFC7515A1.token)
        #expect(reading.status == 2)
        #expect(reading.stderr == "error: invalid_input: cannot read keys: is a directory\n", "\(reading)")
    }

    @Test(arguments: [
        ["--type", "rsa", "--bits", "1024"],
        ["--type", "ec", "--curve", "P-192"],
        ["--type", "ec", "--curve", "Ed25519"],
        ["--type", "okp", "--curve", "P-256"],
        ["--type", "rsa", "--alg", "ES256"],
        ["--type", "ec", "--alg", "ES384", "--curve", "P-256"],
        ["--type", "oct", "--bits", "128"],
        ["--type", "oct", "--bits", "256", "--alg", "HS512"],
        ["--type", "oct", "--format", "pem"],
        ["--type", "dsa"],
        ["--type", "ec", "--alg", "none"],
    ])
    func keygenRefusesBadRequests(flags: [String]) throws {
        let s = try Scratch()
        let r = try s.tokentool(args: ["keygen"] + flags + ["--out", "key"])
        #expect(r.status == 2, "\(flags): \(r)")
        #expect(!FileManager.default.fileExists(atPath: s.path("key")))
    }

    @Test func rfc8037Thumbprint() throws {
        let s = try Scratch()
        // RFC 8037 Appendix A.3.
        try s.write("ed.jwk", #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
        let r = try s.tokentool("jwk", "--thumbprint", "ed.jwk")
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k\n")
    }

    @Test func pemToJWKAgreesWithJoserfc() throws {
        let s = try Scratch()
        try s.sh(
            "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem 2>/dev/null && openssl pkey -in key.pem -pubout -out pub.pem")
        let r = try s.tokentool("jwk", "--public", "key.pem")
        #expect(r.status == 0, "\(r)")
        let ours = try #require(r.json)
        let theirs = try s.sh(
            "python3 -c 'from joserfc.jwk import RSAKey; import json; print(json.dumps(RSAKey.import_key(open(\"pub.pem\").read()).as_dict(private=False)))'"
        )
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(theirs.utf8)) as? [String: Any])
        #expect(ours["kty"] as? String == "RSA")
        #expect(ours["n"] as? String == expected["n"] as? String)
        #expect(ours["e"] as? String == expected["e"] as? String)
        #expect(ours["d"] == nil)
        let thumb = try s.tokentool("jwk", "--thumbprint", "pub.pem")
        let theirThumb = try s.sh("python3 -c 'from joserfc.jwk import RSAKey; print(RSAKey.import_key(open(\"pub.pem\").read()).thumbprint())'")
        #expect(thumb.stdout == theirThumb)
        // The same key from the private file, a certificate, and a PKCS#1 public key.
        try s.sh(
            "openssl req -x509 -new -key key.pem -subj /CN=t -days 1 -out cert.pem 2>/dev/null && openssl rsa -in key.pem -RSAPublicKey_out -out pkcs1.pem 2>/dev/null"
        )
        for file in ["key.pem", "cert.pem", "pkcs1.pem"] {
            #expect(try s.tokentool("jwk", "--thumbprint", file).stdout == theirThumb, "\(file)")
        }
    }

    @Test func jwkToPEMIsTheSameKeyForOpenSSL() throws {
        let s = try Scratch()
        try s.sh("openssl genpkey -algorithm ed25519 -out key.pem && openssl pkey -in key.pem -pubout -out pub.pem")
        #expect(try s.tokentool("jwk", "--public", "--kid", "k1", "key.pem", "--out", "pub.jwk").status == 0)
        #expect(try Self.mode(s.path("pub.jwk")) == 0o644)
        let jwk = try #require(try JSONSerialization.jsonObject(with: readAll(s.url.appendingPathComponent("pub.jwk"))) as? [String: Any])
        #expect(jwk["kid"] as? String == "k1")
        let back = try s.tokentool("jwk", "pub.jwk")
        #expect(back.status == 0, "\(back)")
        #expect(back.stdout == (try s.read("pub.pem")))
    }

    @Test func jwkNeverPrintsPrivateKeysUnasked() throws {
        let s = try Scratch()
        try s.sh("openssl genpkey -algorithm ed25519 -out key.pem")
        let r = try s.tokentool("jwk", "key.pem")
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("--public"))
        let printed = try s.tokentool("jwk", "--print-private", "key.pem")
        #expect(printed.status == 0)
        #expect(printed.json?["d"] != nil)
        #expect(try s.tokentool("jwk", "--out", "key.jwk", "key.pem").status == 0)
        #expect(try Self.mode(s.path("key.jwk")) == 0o600)
        #expect(try s.tokentool("jwk", "missing.pem").status == 2)
        try s.write("weak.pem", try s.sh("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 2>/dev/null"))
        let weak = try s.tokentool("jwk", "--public", "weak.pem")
        #expect(weak.status == 2)
        #expect(weak.stderr.hasPrefix("error: invalid_key: "), "\(weak)")
    }

    @Test func jwksHoldsPublicHalvesOnly() throws {
        let s = try Scratch()
        try s.sh("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem 2>/dev/null")
        try #require(try s.tokentool("keygen", "--type", "ec", "--kid", "ec1", "--out", "ec.jwk").status == 0)
        try s.write("p521.jwk", RFC7520ES512.publicJWK)
        let r = try s.tokentool("jwks", "rsa.pem", "ec.jwk", "p521.jwk")
        #expect(r.status == 0, "\(r)")
        let keys = try #require(r.json?["keys"] as? [[String: Any]])
        #expect(keys.map { $0["kty"] as? String } == ["RSA", "EC", "EC"])
        #expect(keys.allSatisfy { $0["d"] == nil && $0["p"] == nil })
        #expect(keys[1]["kid"] as? String == "ec1")
        // joserfc reads it as a key set.
        try s.write("jwks.json", r.stdout)
        #expect(
            try s.sh(
                "python3 -c 'from joserfc.jwk import KeySet; import json; print(len(KeySet.import_key_set(json.load(open(\"jwks.json\"))).keys))'")
                == "3\n")
        // And tokentool verifies with it.
        let token = try s.tokentool("sign", "--key", "ec.jwk", "--set", "sub=x").stdout.trimmingCharacters(in: .newlines)
        #expect(try s.tokentool("verify", "--jwks", "jwks.json", token).status == 0)
    }

    @Test func jwksRefusesSecretsAndDuplicateKids() throws {
        let s = try Scratch()
        try s.write("oct.jwk", RFC7515A1.jwk)
        try s.write("p521.jwk", RFC7520ES512.publicJWK)
        try s.write("copy.jwk", RFC7520ES512.publicJWK)
        for files in [["oct.jwk"], ["p521.jwk", "copy.jwk"], [String]()] {
            let r = try s.tokentool(args: ["jwks"] + files)
            #expect(r.status == 2, "\(files): \(r)")
            #expect(r.stdout.isEmpty)
        }
    }
}
