import Foundation
import Testing
@testable import JOSE

/// Interop with the `openssl` command line in both directions, using the fixture keys of
/// TestVectors/pem: signatures openssl makes over a JWS signing input verify here, and
/// signatures we make verify with `openssl dgst -verify` / `pkeyutl -verify`.
@Suite(.serialized) struct OpenSSLInteropTests {
    /// (alg, private key fixture, public key fixture, openssl digest)
    static let asymmetric: [(JWSAlgorithm, String, String)] = [
        (.rs256, "rsa2048", "-sha256"), (.rs384, "rsa2048", "-sha384"), (.rs512, "rsa2048", "-sha512"),
        (.ps256, "rsa2048", "-sha256"), (.ps384, "rsa2048", "-sha384"), (.ps512, "rsa2048", "-sha512"),
        (.es256, "ecp256", "-sha256"), (.es384, "ecp384", "-sha384"), (.es512, "ecp521", "-sha512"),
        (.edDSA, "ed25519", ""),
    ]

    static func signingInput(_ alg: JWSAlgorithm) -> String {
        Base64URL.encode(Array(#"{"alg":"\#(alg.rawValue)","kid":"openssl"}"#.utf8)) + "."
            + Base64URL.encode(Array(#"{"sub":"openssl","note":"signed by the openssl CLI ’"}"#.utf8))
    }

    static func pssOptions(_ alg: JWSAlgorithm) -> [String] {
        // RFC 7518 §3.5: MGF1 with the same hash, salt length = hash length.
        alg.scheme == .rsaPSS
            ? ["-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:\(alg.hashLength)", "-sigopt", "rsa_mgf1_md:\(alg.digestName)"] : []
    }

    /// DER ECDSA-Sig-Value → JWS r ‖ s, read with `openssl asn1parse` (not our converter).
    static func rawECDSA(fromDER der: URL, size: Int) throws -> [UInt8] {
        let text = String(decoding: try Interop.openssl(["asn1parse", "-inform", "DER", "-in", der.path]), as: UTF8.self)
        let integers = text.split(separator: "\n").compactMap { line -> [UInt8]? in
            guard line.contains("INTEGER"), let colon = line.lastIndex(of: ":") else { return nil }
            var hex = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if hex.count % 2 == 1 { hex = "0" + hex }
            return [UInt8](hex: hex)
        }
        guard integers.count == 2 else { throw VectorError("asn1parse found \(integers.count) integers") }
        return integers.flatMap { [UInt8](repeating: 0, count: max(0, size - $0.count)) + $0.suffix(size) }
    }

    /// JWS r ‖ s → DER, built by `openssl asn1parse -genconf`.
    static func derECDSA(fromRaw raw: [UInt8], dir: URL) throws -> URL {
        let half = raw.count / 2
        let conf = dir.appendingPathComponent("sig.cnf")
        try "asn1=SEQUENCE:sig\n[sig]\nr=INTEGER:0x\(Array(raw[..<half]).hexString)\ns=INTEGER:0x\(Array(raw[half...]).hexString)\n"
            .write(to: conf, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("sig.der")
        try Interop.openssl(["asn1parse", "-genconf", conf.path, "-noout", "-out", out.path])
        return out
    }

    @Test(arguments: asymmetric)
    func opensslSignsWeVerify(alg: JWSAlgorithm, name: String, digest: String) throws {
        try Interop.withTemporaryDirectory { dir in
            let input = Self.signingInput(alg)
            let inputFile = dir.appendingPathComponent("input")
            try Data(input.utf8).write(to: inputFile)
            let sigFile = dir.appendingPathComponent("sig")
            let keyPath = TestVectors.url("pem/\(name).pkcs8.pem").path
            if alg == .edDSA {
                try Interop.openssl(["pkeyutl", "-sign", "-rawin", "-inkey", keyPath, "-in", inputFile.path, "-out", sigFile.path])
            } else {
                try Interop.openssl(["dgst", digest, "-sign", keyPath] + Self.pssOptions(alg) + ["-out", sigFile.path, inputFile.path])
            }
            var signature = Array(try Data(contentsOf: sigFile))
            if alg.scheme == .ecdsa { signature = try Self.rawECDSA(fromDER: sigFile, size: alg.curve!.coordinateSize) }
            let token = input + "." + Base64URL.encode(signature)
            var key = try JWK(pem: TestVectors.text("pem/\(name).spki.pem"))
            key.keyID = "openssl"
            let verified = try JWTVerifier(key: key, options: VerifierOptions(clock: .fixed(unixSeconds: 1_800_000_000))).verify(token)
            #expect(verified.header.algorithm == alg)
            #expect(verified.claims.subject == "openssl")
            // Negative control: the same signature over another payload.
            let other =
                Base64URL.encode(Array(#"{"alg":"\#(alg.rawValue)","kid":"openssl"}"#.utf8)) + "."
                + Base64URL.encode(Array(#"{"sub":"mallory"}"#.utf8))
            #expect(throws: TokenError(.invalidSignature, "")) { try JWTVerifier(key: key).verify(other + "." + Base64URL.encode(signature)) }
        }
    }

    @Test(arguments: asymmetric)
    func weSignOpensslVerifies(alg: JWSAlgorithm, name: String, digest: String) throws {
        try Interop.withTemporaryDirectory { dir in
            let key = try JWK(pem: TestVectors.text("pem/\(name).pkcs8.pem"))
            let token = try JWTSigner(key: key, algorithm: alg).sign(["sub": "ours"] as ClaimSet)
            let parts = token.split(separator: ".").map(String.init)
            let inputFile = dir.appendingPathComponent("input")
            try Data((parts[0] + "." + parts[1]).utf8).write(to: inputFile)
            let raw = try Base64URL.decode(parts[2], what: "signature")
            var sigFile = dir.appendingPathComponent("sig")
            if alg.scheme == .ecdsa {
                #expect(raw.count == 2 * alg.curve!.coordinateSize)
                sigFile = try Self.derECDSA(fromRaw: raw, dir: dir)
            } else {
                try Data(raw).write(to: sigFile)
            }
            let pub = TestVectors.url("pem/\(name).spki.pem").path
            func opensslVerify(_ input: URL) throws -> Interop.Result {
                if alg == .edDSA {
                    return try Interop.run(
                        "openssl", ["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", pub, "-in", input.path, "-sigfile", sigFile.path])
                }
                return try Interop.run(
                    "openssl", ["dgst", digest, "-verify", pub] + Self.pssOptions(alg) + ["-signature", sigFile.path, input.path])
            }
            let ok = try opensslVerify(inputFile)
            #expect(ok.status == 0, "\(alg): openssl refused our signature: \(ok.stderr)")
            // Negative control: openssl refuses the signature over a changed input.
            let tampered = dir.appendingPathComponent("tampered")
            try Data((parts[0] + "." + parts[1] + "A").utf8).write(to: tampered)
            #expect(try opensslVerify(tampered).status != 0, "\(alg): openssl accepted a tampered input")
        }
    }

    /// HS256/384/512: `openssl dgst -mac HMAC` computes the same tag over the signing input.
    @Test(arguments: [JWSAlgorithm.hs256, .hs384, .hs512])
    func hmacMatchesOpenssl(alg: JWSAlgorithm) throws {
        try Interop.withTemporaryDirectory { dir in
            let secret = try SecureRandom.bytes(alg.hashLength)
            let token = try JWTSigner(key: JWK(hmacSecret: secret), algorithm: alg).sign(["sub": "mac"] as ClaimSet)
            let parts = token.split(separator: ".").map(String.init)
            let inputFile = dir.appendingPathComponent("input")
            try Data((parts[0] + "." + parts[1]).utf8).write(to: inputFile)
            let out = try Interop.openssl([
                "dgst", "-\(alg.digestName.lowercased())", "-mac", "HMAC", "-macopt", "hexkey:\(secret.hexString)", "-binary", inputFile.path,
            ])
            let ours = try Base64URL.decode(parts[2], what: "mac")
            #expect(Array(out) == ours, "openssl \(Array(out).hexString), ours \(ours.hexString)")
        }
    }

    /// openssl reads the PEM we export, and finds the same public key.
    @Test func opensslReadsOurPEM() throws {
        try Interop.withTemporaryDirectory { dir in
            for key in [try JWK.generateRSA(), try JWK.generate(curve: .p256), try JWK.generate(curve: .p521), try JWK.generate(curve: .ed25519)] {
                let file = dir.appendingPathComponent("key.pem")
                try key.pem().write(to: file, atomically: true, encoding: .utf8)
                if key.keyType != .okp { try Interop.openssl(["pkey", "-in", file.path, "-check", "-noout"]) }
                let der = try Interop.openssl(["pkey", "-in", file.path, "-pubout", "-outform", "DER"])
                #expect(Array(der) == (try key.publicKeyDER()))
            }
        }
    }
}
