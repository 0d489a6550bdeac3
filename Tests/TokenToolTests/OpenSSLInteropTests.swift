import CLIHarness
import Foundation
import Testing

/// Keys and signatures made by the `openssl` command line (an independent implementation):
/// its tokens verify with tokentool, and tokentool's tokens verify with openssl.
@Suite struct OpenSSLInteropTests {
    /// Builds `header.payload` and signs it with an openssl command reading `input`, writing `sig`.
    static func opensslToken(_ s: Scratch, header: String, payload: String, sign: String) throws -> String {
        let input = "\(b64url(header)).\(b64url(payload))"
        try s.write("input", input)
        try s.sh(sign)
        return input + "." + b64url(try readAll(s.url.appendingPathComponent("sig")))
    }

    static let payload = #"{"sub":"openssl","exp":4102444800}"#

    @Test(arguments: ["pkcs8", "traditional"])
    func rsaKeyInEveryPEMForm(privateForm: String) throws {
        let s = try Scratch()
        if privateForm == "pkcs8" {
            try s.sh("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out key.pem 2>/dev/null")
        } else {
            try s.sh("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 2>/dev/null | openssl rsa -traditional -out key.pem 2>/dev/null")
            #expect(try s.read("key.pem").hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        }
        try s.sh(
            """
            openssl pkey -in key.pem -pubout -out spki.pem
            openssl rsa -in key.pem -RSAPublicKey_out -out pkcs1.pem 2>/dev/null
            openssl req -x509 -new -key key.pem -subj /CN=tokentool-test -days 2 -out cert.pem 2>/dev/null
            """)
        #expect(try s.read("pkcs1.pem").hasPrefix("-----BEGIN RSA PUBLIC KEY-----"))
        let rs256 = try Self.opensslToken(
            s, header: #"{"alg":"RS256","typ":"JWT"}"#, payload: Self.payload,
            sign: "openssl dgst -sha256 -sign key.pem -out sig input")
        // RFC 7518 §3.5: PS256 uses MGF1 with SHA-256 and a 32-byte salt.
        let ps256 = try Self.opensslToken(
            s, header: #"{"alg":"PS256"}"#, payload: Self.payload,
            sign: "openssl dgst -sha256 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32 -sign key.pem -out sig input")
        for keyFile in ["key.pem", "spki.pem", "pkcs1.pem", "cert.pem"] {
            for token in [rs256, ps256] {
                let r = try s.tokentool("verify", "--key", keyFile, "--json", token)
                #expect(r.status == 0, "\(keyFile): \(r)")
                #expect((r.json?["payload"] as? [String: Any])?["sub"] as? String == "openssl")
            }
        }
        let human = try s.tokentool("verify", "--key", "cert.pem", rs256)
        #expect(human.stdout.contains("RSA 2048-bit public key"), "\(human)")
        // --alg narrows what the RSA key allows.
        #expect(try s.tokentool("verify", "--key", "spki.pem", "--alg", "PS256", rs256).status == 1)

        // The other way: tokentool signs with openssl's key, openssl verifies.
        for (alg, opts) in [("RS256", ""), ("PS256", "-sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32")] {
            let signed = try s.tokentool("sign", "--key", "key.pem", "--alg", alg, "--set", "sub=us", "--now", "1800000000")
            #expect(signed.status == 0, "\(signed)")
            let parts = signed.stdout.trimmingCharacters(in: .newlines).split(separator: ".").map(String.init)
            try #require(parts.count == 3)
            try s.write("ours.input", "\(parts[0]).\(parts[1])")
            try Self.writeB64url(s, parts[2], to: "ours.sig")
            let out = try s.sh("openssl dgst -sha256 \(opts) -verify spki.pem -signature ours.sig ours.input")
            #expect(out.contains("Verified OK"))
        }
    }

    @Test func ed25519BothWays() throws {
        let s = try Scratch()
        try s.sh("openssl genpkey -algorithm ed25519 -out key.pem && openssl pkey -in key.pem -pubout -out pub.pem")
        let token = try Self.opensslToken(
            s, header: #"{"alg":"EdDSA"}"#, payload: Self.payload,
            sign: "openssl pkeyutl -sign -inkey key.pem -rawin -in input -out sig")
        let r = try s.tokentool("verify", "--key", "pub.pem", token)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("Ed25519 public key"))

        let ours = try s.tokentool("sign", "--key", "key.pem", "--set", "sub=us")
        let parts = ours.stdout.trimmingCharacters(in: .newlines).split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        #expect(
            try s.tokentool("decode", "--json", ours.stdout.trimmingCharacters(in: .newlines)).json.flatMap {
                ($0["header"] as? [String: Any])?["alg"] as? String
            } == "EdDSA")
        try s.write("ours.input", "\(parts[0]).\(parts[1])")
        try Self.writeB64url(s, parts[2], to: "ours.sig")
        let out = try s.sh("openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in ours.input -sigfile ours.sig")
        #expect(out.contains("Signature Verified Successfully"))
    }

    /// ES256 both ways; openssl speaks DER ECDSA signatures, JWS raw r||s (RFC 7518 §3.4), so a
    /// small python3 step converts, independently of JOSE.
    @Test func es256BothWays() throws {
        let s = try Scratch()
        try s.sh("openssl ecparam -name prime256v1 -genkey -noout -out key.pem && openssl ec -in key.pem -pubout -out pub.pem 2>/dev/null")
        #expect(try s.read("key.pem").hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        try s.write(
            "der2raw.py",
            """
            import sys
            d = open(sys.argv[1], 'rb').read()
            assert d[0] == 0x30
            i = 2 if d[1] < 0x80 else 3
            out = b''
            for _ in range(2):
                assert d[i] == 0x02
                n = d[i + 1]; v = d[i + 2:i + 2 + n]; i += 2 + n
                out += v.lstrip(b'\\x00').rjust(32, b'\\x00')
            open(sys.argv[2], 'wb').write(out)
            """)
        try s.write(
            "raw2der.py",
            """
            import sys
            r = open(sys.argv[1], 'rb').read()
            def integer(b):
                b = b.lstrip(b'\\x00') or b'\\x00'
                if b[0] & 0x80: b = b'\\x00' + b
                return bytes([2, len(b)]) + b
            body = integer(r[:32]) + integer(r[32:])
            open(sys.argv[2], 'wb').write(bytes([0x30, len(body)]) + body)
            """)
        let token = try Self.opensslToken(
            s, header: #"{"alg":"ES256"}"#, payload: Self.payload,
            sign: "openssl dgst -sha256 -sign key.pem -out sig.der input && python3 der2raw.py sig.der sig")
        let r = try s.tokentool("verify", "--json", "--key", "pub.pem", token)
        #expect(r.status == 0, "\(r)")
        // The DER form itself is not a JWS signature.
        let der = token.split(separator: ".").prefix(2).joined(separator: ".") + "." + b64url(try readAll(s.url.appendingPathComponent("sig.der")))
        #expect(try s.tokentool("verify", "--json", "--key", "pub.pem", der).errorCode == "invalid_signature")

        let ours = try s.tokentool("sign", "--key", "key.pem", "--set", "sub=us")
        let parts = ours.stdout.trimmingCharacters(in: .newlines).split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        try s.write("ours.input", "\(parts[0]).\(parts[1])")
        try Self.writeB64url(s, parts[2], to: "ours.raw")
        try s.sh("python3 raw2der.py ours.raw ours.sig")
        #expect(try s.sh("openssl dgst -sha256 -verify pub.pem -signature ours.sig ours.input").contains("Verified OK"))
    }

    /// Decodes base64url with base64(1) (after mapping the alphabet back and re-padding).
    static func writeB64url(_ s: Scratch, _ text: String, to file: String) throws {
        var b64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        try s.sh("base64 -d > \(file)", stdin: b64)
    }
}
