import Foundation
import Testing
@testable import JOSE

/// PEM and DER import of every key form (fixtures made with the openssl CLI, TestVectors/pem),
/// checked against the public JWK and RFC 7638 thumbprint joserfc computed (pem/expected.json).
@Suite struct KeyImportTests {
    static let expected = try! TestVectors.json("pem/expected.json")

    static func checkMatches(_ key: JWK, _ name: String, file: String) throws {
        let want = expected[name]
        #expect(try key.thumbprint() == want["thumbprint"].string, "\(file)")
        let o = try key.publicKey.jsonObject()
        for member in ["kty", "crv", "x", "y", "n", "e"] where !want["jwk"][member].isNull {
            #expect(o[member]?.stringValue == want["jwk"][member].string, "\(file): member \(member)")
        }
    }

    /// (file, expected key name, is private)
    static let pemFiles: [(String, String, Bool)] = [
        ("rsa2048.pkcs8.pem", "rsa2048", true), ("rsa2048.traditional.pem", "rsa2048", true),
        ("rsa2048.spki.pem", "rsa2048", false), ("rsa2048.pkcs1-public.pem", "rsa2048", false),
        ("rsa2048.cert.pem", "rsa2048", false),
        ("ecp256.pkcs8.pem", "ecp256", true), ("ecp256.traditional.pem", "ecp256", true),
        ("ecp256.spki.pem", "ecp256", false), ("ecp256.cert.pem", "ecp256", false),
        ("ecp384.pkcs8.pem", "ecp384", true), ("ecp384.traditional.pem", "ecp384", true),
        ("ecp384.spki.pem", "ecp384", false), ("ecp384.cert.pem", "ecp384", false),
        ("ecp521.pkcs8.pem", "ecp521", true), ("ecp521.traditional.pem", "ecp521", true),
        ("ecp521.spki.pem", "ecp521", false), ("ecp521.cert.pem", "ecp521", false),
        ("ed25519.pkcs8.pem", "ed25519", true), ("ed25519.spki.pem", "ed25519", false),
    ]

    @Test(arguments: pemFiles)
    func pem(file: String, name: String, isPrivate: Bool) throws {
        let key = try JWK(pem: TestVectors.text("pem/\(file)"))
        #expect(key.isPrivate == isPrivate, "\(file)")
        try Self.checkMatches(key, name, file: file)
    }

    static let derFiles: [(String, String, Bool)] = [
        ("rsa2048.pkcs8.der", "rsa2048", true), ("rsa2048.traditional.der", "rsa2048", true),
        ("rsa2048.spki.der", "rsa2048", false), ("rsa2048.pkcs1-public.der", "rsa2048", false),
        ("rsa2048.cert.der", "rsa2048", false),
        ("ecp256.spki.der", "ecp256", false), ("ecp256.traditional.der", "ecp256", true),
        ("ecp384.spki.der", "ecp384", false), ("ecp384.traditional.der", "ecp384", true),
        ("ecp521.spki.der", "ecp521", false), ("ecp521.traditional.der", "ecp521", true),
        ("ed25519.spki.der", "ed25519", false),
    ]

    @Test(arguments: derFiles)
    func der(file: String, name: String, isPrivate: Bool) throws {
        let key = try JWK(der: TestVectors.bytes("pem/\(file)"))
        #expect(key.isPrivate == isPrivate, "\(file)")
        try Self.checkMatches(key, name, file: file)
    }

    @Test func keyProperties() throws {
        let rsa = try JWK(pem: TestVectors.text("pem/rsa2048.pkcs8.pem"))
        #expect(rsa.keyType == .rsa && rsa.bits == 2048 && rsa.curve == nil)
        for (file, curve, alg) in [("ecp256", JWK.Curve.p256, JWSAlgorithm.es256), ("ecp384", .p384, .es384), ("ecp521", .p521, .es512)] {
            let ec = try JWK(pem: TestVectors.text("pem/\(file).spki.pem"))
            #expect(ec.keyType == .ec && ec.curve == curve && ec.allowedAlgorithms == [alg])
        }
        let ed = try JWK(pem: TestVectors.text("pem/ed25519.pkcs8.pem"))
        #expect(ed.keyType == .okp && ed.curve == .ed25519 && ed.allowedAlgorithms == [.edDSA, .ed25519])
    }

    /// `openssl ecparam -genkey` writes an EC PARAMETERS block before the key: it is skipped.
    @Test func ecParametersBlockSkipped() throws {
        let key = try JWK(pem: TestVectors.text("pem/ec-p256.with-params.pem"))
        #expect(key.isPrivate && key.curve == .p256)
    }

    /// A private key from PEM signs; the certificate's public key verifies.
    @Test func signWithPEMVerifyWithCertificate() throws {
        for name in ["rsa2048", "ecp256", "ecp384", "ecp521"] {
            let priv = try JWK(pem: TestVectors.text("pem/\(name).pkcs8.pem"))
            let cert = try JWK(pem: TestVectors.text("pem/\(name).cert.pem"))
            let token = try JWTSigner(key: priv).sign(["sub": "x"] as ClaimSet)
            #expect(try JWTVerifier(key: cert).verify(token).claims.subject == "x")
        }
    }

    @Test func refusals() throws {
        let rsa = try TestVectors.text("pem/rsa2048.pkcs8.pem")
        let spki = try TestVectors.text("pem/rsa2048.spki.pem")
        let cases: [(String, String)] = [
            (try TestVectors.text("pem/rsa2048.encrypted.pem"), "encrypted PKCS#8"),
            ("", "empty"),
            ("not a key", "no PEM"),
            ("garbage\n" + spki, "text before the block"),
            (spki + "trailing\n", "text after the block"),
            (rsa + spki, "two keys"),
            (spki.replacingOccurrences(of: "-----END PUBLIC KEY-----", with: ""), "no END line"),
            (spki.replacingOccurrences(of: "PUBLIC KEY", with: "SECRET THING"), "unknown label"),
            ("-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n", "bad base64"),
            ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "not DER"),
            ("-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n", "a CRL"),
        ]
        for (text, why) in cases {
            #expect(throws: TokenError(.invalidKey, ""), "\(why)") { try JWK(pem: text) }
        }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(der: []) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(der: [0x30, 0x03, 0x02, 0x01, 0x00]) }
        var trailing = try TestVectors.bytes("pem/rsa2048.spki.der")
        trailing.append(0)
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(der: trailing) }
    }

    /// CRLF line endings (keys pasted from Windows) are read the same.
    @Test func crlf() throws {
        let text = try TestVectors.text("pem/ecp256.spki.pem").replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try JWK(pem: text).thumbprint() == Self.expected["ecp256"]["thumbprint"].string)
    }

    /// Line endings of every kind, and spaces and tabs around lines (RFC 7468 §3 WSP), are read
    /// the same; other white space (NBSP, U+3000) is not base64 and is refused.
    @Test func lineEndingsAndWhiteSpace() throws {
        let pem = try TestVectors.text("pem/ecp256.spki.pem")
        let lines = pem.split(separator: "\n").map(String.init)
        let thumbprint = Self.expected["ecp256"]["thumbprint"].string
        for variant in [
            lines.joined(separator: "\r"), lines.joined(separator: "\r\n") + "\r\n\r\n",
            lines.map { " \t" + $0 + "\t  " }.joined(separator: "\n"), "\n\n" + pem + "\n\n",
        ] {
            #expect(try JWK(pem: variant).thumbprint() == thumbprint, "\(variant.debugDescription.prefix(60))")
        }
        for space in ["\u{A0}", "\u{3000}"] {
            let variant = lines.enumerated().map { $0.offset == 1 ? $0.element + space : $0.element }.joined(separator: "\n")
            #expect(throws: TokenError(.invalidKey, "")) { try JWK(pem: variant) }
        }
    }
}
