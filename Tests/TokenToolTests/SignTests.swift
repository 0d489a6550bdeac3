import Foundation
import Testing

/// `tokentool sign`: claims, durations, keys. Tokens are read back with `decode --json` (parsed
/// by Foundation) and verified with `verify`; the HS256 signature is recomputed by python3's hmac.
@Suite struct SignTests {
    static let now: Int64 = 1_800_000_000

    static func payload(_ s: Scratch, _ token: String) throws -> [String: Any] {
        let r = try s.tokentool("decode", "--json", token)
        return try #require(r.json?["payload"] as? [String: Any], "\(r)")
    }

    @Test func setParsesJSONElseString() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        let r = try s.tokentool(
            "sign", "--key", "key.jwk", "--now", String(Self.now),
            "--set", "n=5", "--set", "b=true", "--set", "s=hello world", "--set", "q=\"5\"",
            "--set", #"o={"a":[1,2]}"#, "--set", #"aud=["api","web"]"#, "--set", "sub=42", "--set", "empty=")
        #expect(r.status == 0, "\(r)")
        let token = r.stdout.trimmingCharacters(in: .newlines)
        let p = try Self.payload(s, token)
        #expect((p["n"] as? NSNumber)?.intValue == 5 && !(p["n"] is String))
        #expect(p["b"] as? Bool == true)
        #expect(p["s"] as? String == "hello world")
        #expect(p["q"] as? String == "5")
        #expect(((p["o"] as? [String: Any])?["a"] as? [Int]) == [1, 2])
        #expect(p["aud"] as? [String] == ["api", "web"])
        #expect(p["sub"] as? String == "42")  // StringOrURI (RFC 7519 §4.1.2) stays a string
        #expect(p["empty"] as? String == "")
        #expect((p["iat"] as? NSNumber)?.int64Value == Self.now)
        #expect(p["exp"] == nil)
    }

    @Test(arguments: [("90s", 90), ("30m", 1800), ("1h", 3600), ("2d", 172_800), ("1h30m", 5400), ("45", 45), ("1w", 604_800)] as [(String, Int64)])
    func expiresIn(duration: String, seconds: Int64) throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        let r = try s.tokentool("sign", "--key", "key.jwk", "--now", String(Self.now), "--expires-in", duration)
        #expect(r.status == 0, "\(r)")
        let p = try Self.payload(s, r.stdout.trimmingCharacters(in: .newlines))
        #expect((p["exp"] as? NSNumber)?.int64Value == Self.now + seconds)
    }

    @Test func hs256SignatureMatchesPythonHMAC() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        let r = try s.tokentool("sign", "--key", "key.jwk", "--set", "iss=joe", "--no-iat")
        let token = r.stdout.trimmingCharacters(in: .newlines)
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let expected = try s.sh(
            """
            python3 -c 'import hmac,hashlib,base64,sys
            k=base64.urlsafe_b64decode("\(RFC7515A1.jwk.split(separator: "\"")[7])==")
            print(base64.urlsafe_b64encode(hmac.new(k,sys.argv[1].encode(),hashlib.sha256).digest()).rstrip(b"=").decode())' '\(parts[0]).\(parts[1])'
            """
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(parts[2] == expected)
        let p = try Self.payload(s, token)
        #expect(p["iat"] == nil)
        #expect(p["iss"] as? String == "joe")
    }

    @Test func claimsFromFileAndStdin() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        try s.write("claims.json", #"{"sub":"alice","iat":1000,"big":9007199254740993}"#)
        let file = try s.tokentool("sign", "--key", "key.jwk", "--claims", "claims.json", "--set", "sub=bob")
        #expect(file.status == 0, "\(file)")
        let p = try Self.payload(s, file.stdout.trimmingCharacters(in: .newlines))
        #expect(p["sub"] as? String == "bob")  // --set wins over the file
        #expect((p["iat"] as? NSNumber)?.int64Value == 1000)  // an explicit iat is kept
        let decoded = try s.tokentool("decode", "--json", file.stdout.trimmingCharacters(in: .newlines))
        #expect(decoded.stdout.contains("9007199254740993"))  // every digit of 2^53+1
        let stdin = try s.tokentool("sign", "--key", "key.jwk", "--claims", "-", stdin: #"{"sub":"carol"}"#)
        #expect(try Self.payload(s, stdin.stdout.trimmingCharacters(in: .newlines))["sub"] as? String == "carol")
    }

    @Test func signedTokenVerifies() throws {
        let s = try Scratch()
        try #require(try s.tokentool("keygen", "--type", "okp", "--kid", "k1", "--out", "ed.jwk", "--public-out", "ed.pub.jwk").status == 0)
        let r = try s.tokentool("sign", "--key", "ed.jwk", "--set", "iss=me", "--expires-in", "5m")
        let v = try s.tokentool("verify", "--json", "--key", "ed.pub.jwk", "--iss", "me", r.stdout.trimmingCharacters(in: .newlines))
        #expect(v.status == 0, "\(v)")
        #expect(v.json?["kid"] as? String == "k1")
        #expect((v.json?["header"] as? [String: Any])?["alg"] as? String == "EdDSA")
    }

    @Test func errorsExitTwo() throws {
        let s = try Scratch()
        try s.write("key.jwk", RFC7515A1.jwk)
        try s.write("pub.jwk", RFC7520ES512.publicJWK)
        try s.write("notobject.json", "[1,2]")
        for flags in [
            [String](), ["--key", "pub.jwk"], ["--key", "key.jwk", "--alg", "RS256"], ["--key", "key.jwk", "--alg", "none"],
            ["--key", "key.jwk", "--expires-in", "soon"], ["--key", "key.jwk", "--expires-in", "0s"],
            ["--key", "key.jwk", "--set", "novalue"], ["--key", "key.jwk", "--claims", "notobject.json"],
            ["--key", "missing.jwk"], ["--key", "key.jwk", "--secret-file", "key.jwk"],
        ] {
            let r = try s.tokentool(args: ["sign"] + flags)
            #expect(r.status == 2, "\(flags): \(r)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.hasPrefix("error: "), "\(flags): \(r)")
        }
    }
}
