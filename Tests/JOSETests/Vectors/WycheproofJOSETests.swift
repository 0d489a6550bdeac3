import Foundation
import Testing
@testable import JOSE

/// Every JWS, JWK and JWS-in-`json_web_crypto` case of Wycheproof, verified through the public
/// API (`JWTVerifier.verifySignature`, since these tokens are JWS, not all JWTs: payloads such as
/// `MTIzNDAw` or RFC 7520's text are not JSON claims) with the group's key or key set.
///
/// As the vectors README (§1.5) says: verify with `public` when present, else `private`; a
/// `keys` member makes it a JWK Set picked from by `kid`. `valid` must be accepted, `invalid`
/// must throw, except for the overrides below.
@Suite struct WycheproofJOSETests {
    /// Upstream labels a strict verifier must override (vectors README §1.6). Each entry is
    /// `tcId: (strict verdict, why)`.
    static let overrides: [String: [Int: (accept: Bool, why: String)]] = [
        "json_web_signature_test.json": [
            // Labelled invalid ("invalidBase64Padding"), but the token is byte-identical to tcId
            // 357 (ValidMac, valid): the '=' padding was lost when upstream generated the vectors
            // (C2SP/wycheproof issue #236). The string is canonical, so it verifies.
            367: (true, "same bytes as tcId 357; the padding under test is missing upstream"),
            370: (true, "same bytes as tcId 357; the padding under test is missing upstream"),
            // Labelled valid, but a '?' sits inside the header / payload segment and the MAC
            // covers the string without it. Strict base64url refuses '?' (RFC 7515 §2), and the
            // MAC over the received bytes (RFC 7515 §5.2) would fail anyway.
            372: (false, "'?' inside the header segment is not base64url"),
            373: (false, "'?' inside the payload segment is not base64url"),
            // Labelled valid (RFC 7520 Figures 20 and 27), but the key's JWK "alg" is pinned
            // to something else. Pinning is what makes tcId 332-340 (PS512 key, header switched
            // to RS*/PS256/PS384) and json_web_key_test 19/20 reject, so these four must reject too.
            346: (false, "the key's alg is PS256, the token's PS384: the key pins its algorithm"),
            350: (false, "the key's alg is PS256, the token's PS384: the key pins its algorithm"),
            347: (false, "the key's alg is \"ES521\" (not a JWA name), the token's ES512: the key pins its algorithm"),
            351: (false, "the key's alg is \"ES521\" (not a JWA name), the token's ES512: the key pins its algorithm"),
        ],
        // Labelled invalid ("MixedKeySet"): a set holding an HMAC secret beside an EC key. The
        // token names the secret's kid and is HS256-signed by it; each key decides its own
        // algorithms, so mixing gives no confusion and we accept such sets.
        "json_web_key_test.json": [1: (true, "a set may hold secrets beside public keys; the secret verifies its own HS256 token")],
        "json_web_crypto_test.json": [47: (true, "a set may hold secrets beside public keys; the secret verifies its own HS256 token")],
    ]

    /// Error codes asserted for the classes of case whose reason is part of the contract
    /// (docs/errors.md codes), by file and tcId. Cases not listed only need the right verdict.
    static let expectedCodes: [String: [Int: Set<TokenError.Code>]] = {
        var sig: [Int: Set<TokenError.Code>] = [:]
        for id in [16, 341, 342, 343, 344] { sig[id] = [.unsupportedAlgorithm] }  // alg none / NONE
        sig[32] = [.malformed]  // attacker "jwk" embedded in the header
        sig[31] = [.algorithmNotAllowed, .keyNotFound]  // HS256 token, EC key: kty mismatch, no MAC computed
        for id in [332, 334, 336, 338, 340] { sig[id] = [.algorithmNotAllowed] }  // PS512 key, other alg in header
        for id in [346, 347, 350, 351] { sig[id] = [.algorithmNotAllowed] }  // overrides: pinned alg
        for id in [353, 354, 355, 356] { sig[id] = [.algorithmNotAllowed, .keyNotFound] }  // use:enc, key_ops:[encrypt]
        for id in [3, 4, 20, 21, 35, 36] { sig[id] = [.malformed] }  // missing signature (segment or separator)
        for id in [9, 10, 11, 12, 13, 14, 15, 17] { sig[id] = [.malformed] }  // structure, JSON serialization
        for id in [360, 361, 362, 363, 364, 365, 366, 368, 369, 371, 372, 373, 374, 375] { sig[id] = [.malformed] }  // base64url strictness
        for id in [2, 5, 19, 22, 34, 37] { sig[id] = [.invalidSignature] }  // modified signature or payload
        for id in [8, 25, 40] { sig[id] = [.invalidSignature, .keyNotFound] }  // modified header (the change hits the kid)
        for id in 379...385 { sig[id] = [.invalidSignature] }  // ES256 signature of the wrong length
        for id in 386...401 { sig[id] = [.invalidSignature] }  // r or s out of range

        var key: [Int: Set<TokenError.Code>] = [:]
        key[4] = [.keyNotFound]  // duplicate kid: ambiguous
        for id in [7, 8, 9, 22, 23, 24] { key[id] = [.keyNotFound, .invalidKey] }  // key refused on load (ROCA, 1024 bits, e=1, bad point/curve/kty)
        // Secrets shorter than the hash (RFC 7518 §3.2) or empty: refused on load (< 32 bytes), or
        // loaded but allowing no algorithm whose hash is longer than the secret.
        for id in [10, 11, 12, 16, 17, 18] { key[id] = [.keyNotFound, .invalidKey, .algorithmNotAllowed] }
        for id in [19, 20, 25, 26] { key[id] = [.algorithmNotAllowed] }  // key alg ES521/ES224/A256GCM/A256KW vs token alg
        for id in [6, 21] { key[id] = [.algorithmNotAllowed, .keyNotFound] }  // use: enc

        var crypto: [Int: Set<TokenError.Code>] = [:]
        for (id, codes) in sig where id <= 45 { crypto[id] = codes }  // tcId 1-45 repeat json_web_signature_test
        crypto[46] = [.invalidKey]  // ROCA key (single JWK)
        for id in 50...83 { crypto[id] = [.malformed] }  // JWE: not a JWS
        return ["json_web_signature_test.json": sig, "json_web_key_test.json": key, "json_web_crypto_test.json": crypto]
    }()

    /// Verifies one token with the group's key material. Key loading errors count as rejection.
    static func verify(token: VJSON, keys: VJSON) -> Outcome {
        Outcome {
            // tcId 17 / 66 of json_web_crypto hold a JSON serialization as an object: hand it over as text.
            let text = token.stringOrNil ?? token.jsonText
            let verifier: JWTVerifier
            if !keys["keys"].isNull {
                verifier = JWTVerifier(keys: try JWKSet(json: keys.jsonText))
            } else {
                verifier = try JWTVerifier(key: JWK(json: keys.jsonText))
            }
            _ = try verifier.verifySignature(text)
        }
    }

    struct Tally: CustomStringConvertible {
        var run = 0, accepted = 0, rejected = 0, overridden = 0, codesChecked = 0
        var description: String {
            "\(run) cases: \(accepted) accepted, \(rejected) rejected, \(overridden) overrides, \(codesChecked) error codes checked"
        }
    }

    @discardableResult
    static func runFile(_ name: String) throws -> Tally {
        let file = try TestVectors.wycheproof(name)
        let overrides = Self.overrides[name] ?? [:]
        let codes = Self.expectedCodes[name] ?? [:]
        var tally = Tally()
        for group in file["testGroups"].array {
            let keys = group["public"].isNull ? group["private"] : group["public"]
            for test in group["tests"].array {
                let id = test["tcId"].int
                let token = test["jws"].isNull ? test["jwe"] : test["jws"]
                let label = test["result"].string
                #expect(label == "valid" || label == "invalid", "\(name) tcId \(id): unexpected label \(label)")
                var expectAccept = label == "valid"
                if let o = overrides[id] {
                    #expect(o.accept != expectAccept, "\(name) tcId \(id): override does not change the upstream label")
                    expectAccept = o.accept
                    tally.overridden += 1
                }
                if !test["jwe"].isNull { expectAccept = false }  // JWE is not supported: refused, whatever its label
                let outcome = verify(token: token, keys: keys)
                tally.run += 1
                if outcome.accepted { tally.accepted += 1 } else { tally.rejected += 1 }
                #expect(
                    outcome.accepted == expectAccept,
                    "\(name) tcId \(id) (\(test["comment"].string), label \(label)): \(outcome)")
                if let allowed = codes[id], !expectAccept {
                    tally.codesChecked += 1
                    #expect(
                        outcome.code.map(allowed.contains) == true,
                        "\(name) tcId \(id) (\(test["comment"].string)): expected \(allowed.map(\.rawValue).sorted()), got \(outcome)")
                }
            }
        }
        #expect(tally.run == file["numberOfTests"].int)
        print("wycheproof \(name): \(tally)")
        return tally
    }

    @Test func jsonWebSignature() throws {
        let t = try Self.runFile("json_web_signature_test.json")
        #expect(t.run == 401 && t.overridden == 8)
    }

    @Test func jsonWebKey() throws {
        let t = try Self.runFile("json_web_key_test.json")
        #expect(t.run == 26)
    }

    /// tcId 1-49 are JWS (1-45 repeat json_web_signature_test; 46-49 the ROCA and key set cases);
    /// tcId 50-83 are JWE, which this compact-JWS verifier refuses as malformed (5 segments, or a
    /// JSON object for tcId 66), whatever their label.
    @Test func jsonWebCrypto() throws {
        let t = try Self.runFile("json_web_crypto_test.json")
        #expect(t.run == 83)
    }

    /// Not a verdict test (JWE is out of scope): every JWE of json_web_encryption_test is refused
    /// as `malformed` by the JWS verifier, never mistaken for a JWS, whatever key is given.
    @Test func jsonWebEncryptionIsRefused() throws {
        let file = try TestVectors.wycheproof("json_web_encryption_test.json")
        var run = 0
        for group in file["testGroups"].array {
            for test in group["tests"].array {
                let outcome = Self.verify(token: test["jwe"], keys: group["private"])
                run += 1
                #expect(
                    !outcome.accepted && (outcome.code == .malformed || outcome.code == .invalidKey),
                    "json_web_encryption_test tcId \(test["tcId"].int): \(outcome)")
            }
        }
        #expect(run == 139)
        print("wycheproof json_web_encryption_test.json: \(run) JWE refused")
    }
}
