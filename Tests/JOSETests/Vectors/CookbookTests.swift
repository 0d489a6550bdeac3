import Foundation
import Testing
@testable import JOSE

/// RFC 7520 ("JOSE Cookbook") examples, machine-readable, plus the RFC 8037 Ed25519 and RFC 7797
/// `b64: false` examples (TestVectors/jose-cookbook).
///
/// Every compact JWS verifies; the deterministic ones (RS256, HS256, EdDSA) are reproduced byte
/// for byte by `JWTSigner`; JSON serializations, `b64: false` and JWE are refused as `malformed`.
@Suite struct CookbookTests {
    static func example(_ path: String) throws -> VJSON { try TestVectors.json("jose-cookbook/\(path)") }

    /// The first key of an example (4.8 has a list).
    static func key(_ example: VJSON) throws -> JWK {
        let k = example["input"]["key"]
        return try JWK(json: (k.array.first ?? k).jsonText)
    }

    static func verifier(_ key: JWK) throws -> JWTVerifier { try JWTVerifier(key: key.publicKey) }

    static let compactExamples: [(String, JWSAlgorithm)] = [
        ("jws/4_1.rsa_v15_signature.json", .rs256),
        ("jws/4_2.rsa-pss_signature.json", .ps384),
        ("jws/4_3.ecdsa_signature.json", .es512),
        ("jws/4_4.hmac-sha2_integrity_protection.json", .hs256),
        ("curve25519/jws.json", .edDSA),
    ]

    @Test(arguments: compactExamples)
    func compactVerifies(path: String, alg: JWSAlgorithm) throws {
        let ex = try Self.example(path)
        let key = try Self.key(ex)
        let verified = try Self.verifier(key).verifySignature(ex["output"]["compact"].string)
        #expect(verified.header.algorithm == alg)
        #expect(verified.payload == Array(ex["input"]["payload"].string.utf8))
        #expect(verified.keyID == ex["input"]["key"]["kid"].stringOrNil)
        // The signing input the cookbook lists is what was signed.
        #expect(ex["output"]["compact"].string.hasPrefix(ex["signing"]["sig-input"].string + "."))
    }

    /// RS256 (PKCS#1 v1.5), HS256 and Ed25519 are deterministic: signing the cookbook's inputs must
    /// give the cookbook's output exactly (header `{"alg":…,"kid":…}` with no `typ`).
    static let reproducible = ["jws/4_1.rsa_v15_signature.json", "jws/4_4.hmac-sha2_integrity_protection.json", "curve25519/jws.json"]

    @Test(arguments: reproducible)
    func reproducesExactly(path: String) throws {
        let ex = try Self.example(path)
        #expect(ex["reproducible"] == .bool(true))
        let key = try Self.key(ex)
        var signer = try JWTSigner(key: key, algorithm: JWSAlgorithm.parse(ex["input"]["alg"].string))
        signer.type = nil
        #expect(signer.keyID == ex["input"]["key"]["kid"].stringOrNil)
        let token = try signer.signJWS(payload: Array(ex["input"]["payload"].string.utf8))
        #expect(token == ex["output"]["compact"].string)
        #expect(token.split(separator: ".").first.map(String.init) == ex["signing"]["protected_b64u"].string)
    }

    /// §4.5: the compact form has an empty payload segment; the payload travels separately.
    @Test func detachedContent() throws {
        let ex = try Self.example("jws/4_5.signature_with_detached_content.json")
        let key = try Self.key(ex)
        let parts = ex["output"]["compact"].string.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3 && parts[1].isEmpty)
        let payload = Array(ex["input"]["payload"].string.utf8)
        let attached = [parts[0], Base64URL.encode(payload), parts[2]].joined(separator: ".")
        let verified = try Self.verifier(key).verifySignature(attached)
        #expect(verified.payload == payload)
        // As received (payload detached) the signature covers other bytes: it must not verify.
        #expect(throws: TokenError(.invalidSignature, "")) { try Self.verifier(key).verifySignature(ex["output"]["compact"].string) }
        // HS256 is deterministic: signing the same input gives the same signature segment.
        var signer = try JWTSigner(key: key, algorithm: .hs256)
        signer.type = nil
        let token = try signer.signJWS(payload: payload)
        #expect(token.split(separator: ".").last.map(String.init) == parts[2])
    }

    /// Every JWS JSON serialization (flattened and general) of every example is refused: this
    /// library reads the compact form only.
    static let jsonExamples = [
        "jws/4_1.rsa_v15_signature.json", "jws/4_2.rsa-pss_signature.json", "jws/4_3.ecdsa_signature.json",
        "jws/4_4.hmac-sha2_integrity_protection.json", "jws/4_5.signature_with_detached_content.json",
        "jws/4_6.protecting_specific_header_fields.json", "jws/4_7.protecting_content_only.json",
        "jws/4_8.multiple_signatures.json", "curve25519/jws.json",
        "rfc7797/hmac-sha2_b64_false.json", "rfc7797/4.2.hmac-sha2_b64_false.json",
    ]

    @Test(arguments: jsonExamples)
    func jsonSerializationRefused(path: String) throws {
        let ex = try Self.example(path)
        let verifier = try Self.verifier(Self.key(ex))
        var checked = 0
        for form in ["json", "json_flat"] where !ex["output"][form].isNull {
            checked += 1
            #expect(throws: TokenError(.malformed, ""), "\(path) \(form)") { try verifier.verifySignature(ex["output"][form].jsonText) }
        }
        #expect(checked >= 1)
    }

    /// RFC 7797 `b64: false` (with `crit: ["b64"]`) in compact form: refused as malformed.
    @Test func unencodedPayloadRefused() throws {
        let ex = try Self.example("rfc7797/hmac-sha2_b64_false.json")
        let verifier = try Self.verifier(Self.key(ex))
        #expect(throws: TokenError(.malformed, "")) { try verifier.verifySignature(ex["output"]["compact"].string) }
        // Also with the payload base64url-encoded, so only the header can be the reason.
        let parts = ex["output"]["compact"].string.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let encoded = [parts[0], Base64URL.encode(Array(parts[1].utf8)), parts[2]].joined(separator: ".")
        #expect(throws: TokenError(.malformed, "")) { try verifier.verifySignature(encoded) }
    }

    /// RFC 7520 §6: a PS256 JWT (exp 1300819380, in 2011) nested in a JWE.
    @Test func nestedJWT() throws {
        let ex = try Self.example("6.nesting_signatures_and_encryption.json")
        let key = try JWK(json: ex["sign"]["input"]["key"].jsonText).publicKey
        let jwt = ex["sign"]["output"]["compact"].string
        #expect(try JWTVerifier(key: key).verifySignature(jwt).header.algorithm == .ps256)
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try JWTVerifier(key: key).verify(jwt) }
        let before = try JWTVerifier(
            key: key, options: VerifierOptions(issuers: ["hobbiton.example"], type: "JWT", clock: .fixed(unixSeconds: 1_300_819_379)))
        let verified = try before.verify(jwt)
        #expect(verified.claims.issuer == "hobbiton.example")
        #expect(verified.claims["http://example.com/is_root"] == .bool(true))
        // The JWE around it is not a JWS.
        for form in ["compact", "json", "json_flat"] {
            let v = ex["encrypt"]["output"][form]
            #expect(throws: TokenError(.malformed, "")) { try JWTVerifier(key: key).verifySignature(v.stringOrNil ?? v.jsonText) }
        }
    }

    /// RFC 7520 §5 JWE examples (and the X25519 ECDH-ES one): never mistaken for a JWS.
    @Test func jweRefused() throws {
        let dir = TestVectors.url("jose-cookbook/jwe")
        var files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.map { "jwe/" + $0 }
        files.append("curve25519/ecdh-es.json")
        #expect(files.count == 14)
        let key = try JWK.generateSecret()
        var checked = 0
        for path in files {
            let ex = try Self.example(path)
            for form in ["compact", "json", "json_flat"] where !ex["output"][form].isNull {
                let v = ex["output"][form]
                checked += 1
                #expect(throws: TokenError(.malformed, ""), "\(path) \(form)") {
                    try JWTVerifier(key: key).verifySignature(v.stringOrNil ?? v.jsonText)
                }
            }
        }
        #expect(checked == 37)
    }

    // MARK: RFC 7520 §3 keys

    @Test func ecKeys() throws {
        let pub = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_1.ec_public_key.json"))
        let priv = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_2.ec_private_key.json"))
        #expect(pub.keyType == .ec && pub.curve == .p521 && !pub.isPrivate && pub.bits == 521)
        #expect(priv.isPrivate && priv.curve == .p521)
        #expect(pub.keyID == "bilbo.baggins@hobbiton.example" && pub.use == "sig")
        #expect(pub.allowedAlgorithms == [.es512])
        #expect(try priv.publicKey.thumbprint() == pub.thumbprint())
        // Export gives back the published members.
        let source = try TestVectors.json("jose-cookbook/jwk/3_2.ec_private_key.json")
        let exported = try priv.jsonObject(includePrivate: true)
        for name in ["kty", "kid", "use", "crv", "x", "y", "d"] { #expect(exported[name]?.stringValue == source[name].string, "member \(name)") }
        #expect(try pub.jsonObject()["d"] == nil)
    }

    @Test func rsaKeys() throws {
        let pub = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_3.rsa_public_key.json"))
        let priv = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_4.rsa_private_key.json"))
        #expect(pub.keyType == .rsa && pub.bits == 2048 && !pub.isPrivate && priv.isPrivate)
        #expect(pub.allowedAlgorithms == [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512])
        #expect(try priv.publicKey.thumbprint() == pub.thumbprint())
        let source = try TestVectors.json("jose-cookbook/jwk/3_4.rsa_private_key.json")
        let exported = try priv.jsonObject(includePrivate: true)
        for name in ["kty", "kid", "use", "n", "e", "d", "p", "q", "dp", "dq", "qi"] {
            #expect(exported[name]?.stringValue == source[name].string, "member \(name)")
        }
    }

    @Test func symmetricKeys() throws {
        let mac = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_5.symmetric_key_mac_computation.json"))
        #expect(mac.keyType == .oct && mac.bits == 256 && mac.allowedAlgorithms == [.hs256])
        try mac.check(.hs256, for: .verify)
        // §3.6: an A256GCM key (use "enc") allows no JWS algorithm at all.
        let enc = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_6.symmetric_key_encryption.json"))
        #expect(enc.algorithm == "A256GCM" && enc.allowedAlgorithms.isEmpty)
        for alg in [JWSAlgorithm.hs256, .hs384, .hs512] {
            #expect(throws: TokenError(.algorithmNotAllowed, "")) { try enc.check(alg, for: .verify) }
        }
    }
}
