import Foundation
import Testing
@testable import JOSE

/// Every case of the Wycheproof primitive files behind the JWS algorithms: RSASSA-PKCS1-v1_5
/// (RS*), RSASSA-PSS (PS*), ECDSA with raw r‖s signatures (ES*), Ed25519 (EdDSA) and HMAC (HS*).
///
/// The signature math is checked through the internal `key.material.verify(alg, signature:data:)`
/// with the group key imported as a JWK; every other encoding of the key the file offers (SPKI
/// DER and PEM, PKCS#1 DER) must import to the same RFC 7638 thumbprint.
@Suite struct WycheproofPrimitiveTests {
    struct Tally: CustomStringConvertible {
        var run = 0, accepted = 0, rejected = 0, groups = 0, keyForms = 0, notes: [String] = []
        var description: String {
            "\(run) cases in \(groups) groups: \(accepted) accepted, \(rejected) rejected; \(keyForms) key encodings cross-checked"
                + (notes.isEmpty ? "" : "; " + notes.joined(separator: "; "))
        }
    }

    /// The primitive verdict: `true` only when verification returns true without throwing.
    static func verdict(_ key: JWK, _ alg: JWSAlgorithm, sig: [UInt8], msg: [UInt8]) -> Outcome {
        Outcome {
            let ok = try msg.withUnsafeBytes { m in try sig.withUnsafeBytes { s in try key.material.verify(alg, signature: s, data: m) } }
            if !ok { throw TokenError(.invalidSignature, "does not verify") }
        }
    }

    /// Imports each extra encoding of a group's public key and checks it is the same key.
    static func crossCheck(_ key: JWK, group: VJSON, file: String, tally: inout Tally) throws {
        let expected = try key.thumbprint()
        var forms: [(String, () throws -> JWK)] = []
        if !group["publicKeyDer"].isNull { forms.append(("publicKeyDer", { try JWK(der: group["publicKeyDer"].hex) })) }
        if !group["publicKeyPem"].isNull { forms.append(("publicKeyPem", { try JWK(pem: group["publicKeyPem"].string) })) }
        if !group["publicKeyAsn"].isNull { forms.append(("publicKeyAsn (PKCS#1)", { try JWK(der: group["publicKeyAsn"].hex) })) }
        for (name, load) in forms {
            let other = try load()
            tally.keyForms += 1
            #expect(try other.thumbprint() == expected, "\(file): \(name) imports to a different key than the JWK")
            #expect(!other.isPrivate && other.keyType == key.keyType && other.curve == key.curve && other.bits == key.bits)
        }
    }

    static func check(_ file: String, _ id: Int, _ label: String, _ comment: String, _ outcome: Outcome, expectAccept: Bool, tally: inout Tally) {
        tally.run += 1
        if outcome.accepted { tally.accepted += 1 } else { tally.rejected += 1 }
        #expect(outcome.accepted == expectAccept, "\(file) tcId \(id) (\(comment), label \(label)): \(outcome)")
    }

    /// `valid` → accept, `invalid` → reject, `acceptable` → reject: the only acceptable cases
    /// here are RSA PKCS#1 DigestInfo without the NULL parameters (flag MissingNull), a legacy
    /// encoding this library, like OpenSSL, does not accept.
    static func expectation(_ test: VJSON, file: String) -> Bool {
        let label = test["result"].string
        if label == "acceptable" {
            #expect(test["flags"].strings == ["MissingNull"], "\(file) tcId \(test["tcId"].int): unexpected acceptable case")
        }
        return label == "valid"
    }

    // MARK: RSA PKCS#1 v1.5 and PSS

    static let rsaFiles: [(String, JWSAlgorithm)] = [
        ("rsa_signature_2048_sha256_test.json", .rs256), ("rsa_signature_2048_sha384_test.json", .rs384),
        ("rsa_signature_2048_sha512_test.json", .rs512), ("rsa_signature_3072_sha256_test.json", .rs256),
        ("rsa_signature_3072_sha384_test.json", .rs384), ("rsa_signature_3072_sha512_test.json", .rs512),
        ("rsa_signature_4096_sha256_test.json", .rs256), ("rsa_signature_4096_sha384_test.json", .rs384),
        ("rsa_signature_4096_sha512_test.json", .rs512),
        ("rsa_pss_2048_sha256_mgf1_32_test.json", .ps256), ("rsa_pss_3072_sha256_mgf1_32_test.json", .ps256),
        ("rsa_pss_4096_sha256_mgf1_32_test.json", .ps256), ("rsa_pss_2048_sha384_mgf1_48_test.json", .ps384),
        ("rsa_pss_4096_sha384_mgf1_48_test.json", .ps384), ("rsa_pss_4096_sha512_mgf1_64_test.json", .ps512),
    ]

    @Test(arguments: rsaFiles)
    func rsa(file: String, alg: JWSAlgorithm) throws {
        let doc = try TestVectors.wycheproof(file)
        var tally = Tally()
        for group in doc["testGroups"].array {
            tally.groups += 1
            let jwk = group["keyJwk"].isNull ? group["publicKeyJwk"] : group["keyJwk"]
            #expect(JWSAlgorithm(rawValue: jwk["alg"].string) == alg, "\(file): group key alg \(jwk["alg"].string)")
            if alg.scheme == .rsaPSS {
                // RFC 7518 §3.5: MGF1 with the message hash, salt as long as the hash.
                #expect(group["mgf"].string == "MGF1" && group["mgfSha"] == group["sha"] && group["sLen"].int == alg.hashLength)
            }
            let key = try JWK(json: jwk.jsonText)
            #expect(key.keyType == .rsa && key.bits == group["keySize"].int)
            try key.check(alg, for: .verify)
            try Self.crossCheck(key, group: group, file: file, tally: &tally)
            for test in group["tests"].array {
                let outcome = Self.verdict(key, alg, sig: test["sig"].hex, msg: test["msg"].hex)
                Self.check(
                    file, test["tcId"].int, test["result"].string, test["comment"].string, outcome,
                    expectAccept: Self.expectation(test, file: file), tally: &tally)
            }
        }
        #expect(tally.run == doc["numberOfTests"].int)
        print("wycheproof \(file): \(tally)")
    }

    // MARK: ECDSA P1363

    static let ecdsaFiles: [(String, JWSAlgorithm)] = [
        ("ecdsa_secp256r1_sha256_p1363_test.json", .es256), ("ecdsa_secp384r1_sha384_p1363_test.json", .es384),
        ("ecdsa_secp521r1_sha512_p1363_test.json", .es512),
    ]

    @Test(arguments: ecdsaFiles)
    func ecdsa(file: String, alg: JWSAlgorithm) throws {
        let doc = try TestVectors.wycheproof(file)
        var tally = Tally()
        var withoutJWK = 0
        for group in doc["testGroups"].array {
            tally.groups += 1
            let key: JWK
            if group["publicKeyJwk"].isNull {
                // The "r = small x" groups have no JWK (vectors README §1.7): use the SPKI DER.
                withoutJWK += 1
                key = try JWK(der: group["publicKeyDer"].hex)
                #expect(try JWK(pem: group["publicKeyPem"].string).thumbprint() == key.thumbprint())
                tally.keyForms += 1
            } else {
                key = try JWK(json: group["publicKeyJwk"].jsonText)
                try Self.crossCheck(key, group: group, file: file, tally: &tally)
            }
            #expect(key.keyType == .ec && key.curve == alg.curve)
            // The SEC1 uncompressed point must be the key's x ‖ y.
            let o = try key.jsonObject()
            let xy = try Base64URL.decode(o["x"]!.stringValue!, what: "x") + Base64URL.decode(o["y"]!.stringValue!, what: "y")
            #expect([0x04] + xy == group["publicKey"]["uncompressed"].hex, "\(file): uncompressed point differs")
            try key.check(alg, for: .verify)
            for test in group["tests"].array {
                let outcome = Self.verdict(key, alg, sig: test["sig"].hex, msg: test["msg"].hex)
                Self.check(
                    file, test["tcId"].int, test["result"].string, test["comment"].string, outcome,
                    expectAccept: Self.expectation(test, file: file), tally: &tally)
            }
        }
        #expect(withoutJWK == 9)
        tally.notes.append("\(withoutJWK) groups keyed from publicKeyDer")
        #expect(tally.run == doc["numberOfTests"].int)
        print("wycheproof \(file): \(tally)")
    }

    // MARK: Ed25519

    @Test func ed25519() throws {
        let file = "ed25519_test.json"
        let doc = try TestVectors.wycheproof(file)
        var tally = Tally()
        for group in doc["testGroups"].array {
            tally.groups += 1
            let key = try JWK(json: group["publicKeyJwk"].jsonText)
            #expect(key.keyType == .okp && key.curve == .ed25519)
            let x = try Base64URL.decode(try key.jsonObject()["x"]!.stringValue!, what: "x")
            #expect(x == group["publicKey"]["pk"].hex)
            try key.check(.edDSA, for: .verify)
            try Self.crossCheck(key, group: group, file: file, tally: &tally)
            for test in group["tests"].array {
                let outcome = Self.verdict(key, .edDSA, sig: test["sig"].hex, msg: test["msg"].hex)
                Self.check(
                    file, test["tcId"].int, test["result"].string, test["comment"].string, outcome,
                    expectAccept: Self.expectation(test, file: file), tally: &tally)
            }
        }
        #expect(tally.run == 151)
        print("wycheproof \(file): \(tally)")
    }

    // MARK: HMAC

    static let hmacFiles: [(String, JWSAlgorithm)] = [
        ("hmac_sha256_test.json", .hs256), ("hmac_sha384_test.json", .hs384), ("hmac_sha512_test.json", .hs512),
    ]

    /// JWS never truncates a MAC, and RFC 7518 §3.2 forbids keys shorter than the hash. So:
    /// - full-length tag, key ≥ hash size: the primitive verdict must match the label;
    /// - truncated tag (any key): every case, `valid` ones included, must be refused;
    /// - key shorter than the hash: the key must be refused for this algorithm, by
    ///   `JWK(hmacSecret:)` (under 32 bytes) or by `allowedAlgorithms`/`check` (32 bytes up to the hash size).
    @Test(arguments: hmacFiles)
    func hmac(file: String, alg: JWSAlgorithm) throws {
        let doc = try TestVectors.wycheproof(file)
        var tally = Tally()
        var primitive = 0, truncated = 0, shortKey = 0
        for group in doc["testGroups"].array {
            tally.groups += 1
            let keyBits = group["keySize"].int, tagBits = group["tagSize"].int
            for test in group["tests"].array {
                let id = test["tcId"].int
                let secret = test["key"].hex
                #expect(secret.count * 8 == keyBits)
                if secret.count < alg.hashLength {
                    // RFC 7518 §3.2: "A key of the same size as the hash output ... or larger MUST be used".
                    shortKey += 1
                    let outcome = Outcome {
                        let key = try JWK(hmacSecret: secret)
                        #expect(!key.allowedAlgorithms.contains(alg), "\(file) tcId \(id): short key allows \(alg.rawValue)")
                        try key.check(alg, for: .verify)
                    }
                    #expect(outcome.code == .invalidKey || outcome.code == .algorithmNotAllowed, "\(file) tcId \(id): short key \(outcome)")
                    Self.check(file, id, test["result"].string, "key shorter than the hash", outcome, expectAccept: false, tally: &tally)
                    continue
                }
                let key = try JWK(hmacSecret: secret)
                try key.check(alg, for: .verify)
                let outcome = Self.verdict(key, alg, sig: test["tag"].hex, msg: test["msg"].hex)
                if tagBits < alg.hashLength * 8 {
                    // Truncated tags are a valid HMAC use, but never a JWS signature.
                    truncated += 1
                    Self.check(file, id, test["result"].string, "truncated tag", outcome, expectAccept: false, tally: &tally)
                } else {
                    primitive += 1
                    Self.check(
                        file, id, test["result"].string, test["comment"].string, outcome,
                        expectAccept: Self.expectation(test, file: file), tally: &tally)
                }
            }
        }
        #expect(primitive == 84 && truncated == 84 && shortKey == 6)
        tally.notes.append(
            "\(primitive) full-tag cases with the primitive verdict, \(truncated) truncated tags refused, \(shortKey) short keys refused")
        #expect(tally.run == doc["numberOfTests"].int)
        print("wycheproof \(file): \(tally)")
    }
}
