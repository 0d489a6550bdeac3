import Foundation
import Testing
@testable import JOSE

/// Interop with joserfc (an independent Python implementation, installed by `make test`), in
/// both directions, for every algorithm: their tokens verify here, ours verify there.
@Suite(.serialized) struct JoserfcInteropTests {
    static let algorithms = JWSAlgorithm.allCases

    static func key(for alg: JWSAlgorithm) throws -> JWK {
        var key: JWK
        switch alg.scheme {
        case .hmac: key = try JWK.generateSecret(bytes: alg.hashLength)
        case .rsaPKCS1, .rsaPSS: key = try JWK.generateRSA(bits: 2048)
        case .ecdsa: key = try JWK.generate(curve: alg.curve!)
        case .eddsa: key = try JWK.generate(curve: .ed25519)
        }
        key.keyID = "ours-\(alg.rawValue)"
        return key
    }

    static func jwk(_ key: JWK, includePrivate: Bool) throws -> VJSON {
        try JSONDecoder().decode(VJSON.self, from: Data(key.jsonString(includePrivate: includePrivate).utf8))
    }

    /// joserfc makes its own key and signs a JWT; we import its JWK and verify.
    @Test func theirTokensVerifyHere() throws {
        let now: Int64 = 1_800_000_000
        let requests = Self.algorithms.map { alg in
            VJSON.object([
                "op": .string("sign"), "alg": .string(alg.rawValue),
                "claims": .object(["sub": .string("joserfc"), "exp": .int(Int(now) + 600), "big": .int(9_007_199_254_740_993)]),
            ])
        }
        let responses = try Interop.joserfc(requests)
        for (alg, response) in zip(Self.algorithms, responses) {
            let key = try JWK(json: response["jwk"].jsonText)
            #expect(!key.isPrivate || alg.scheme == .hmac)
            let verifier = try JWTVerifier(key: key, options: VerifierOptions(type: "JWT", clock: .fixed(unixSeconds: now)))
            let token = response["token"].string
            let verified = try verifier.verify(token)
            #expect(verified.header.algorithm == alg)
            #expect(verified.keyID == "joserfc-\(alg.rawValue)")
            #expect(verified.claims.subject == "joserfc")
            #expect(verified.claims["big"] == .int(9_007_199_254_740_993))
            // Negative control: one flipped signature bit must fail here too.
            var parts = token.split(separator: ".").map(String.init)
            var sig = try Base64URL.decode(parts[2], what: "sig")
            sig[0] ^= 0x01
            parts[2] = Base64URL.encode(sig)
            #expect(throws: TokenError(.invalidSignature, ""), "\(alg)") { try verifier.verify(parts.joined(separator: ".")) }
        }
    }

    /// We sign; joserfc verifies with our exported public JWK (the secret for HS*).
    @Test func ourTokensVerifyThere() throws {
        var requests: [VJSON] = []
        var tokens: [String] = []
        for alg in Self.algorithms {
            let key = try Self.key(for: alg)
            let token = try JWTSigner(key: key, algorithm: alg).sign(["sub": "ours", "n": .int(9_007_199_254_740_993)] as ClaimSet)
            tokens.append(token)
            let jwk = try Self.jwk(key.keyType == .oct ? key : key.publicKey, includePrivate: key.keyType == .oct)
            requests.append(["op": "verify", "alg": .string(alg.rawValue), "jwk": jwk, "token": .string(token)])
            // Negative control: the same token with a flipped signature bit.
            var parts = token.split(separator: ".").map(String.init)
            var sig = try Base64URL.decode(parts[2], what: "sig")
            sig[sig.count - 1] ^= 0x01
            parts[2] = Base64URL.encode(sig)
            requests.append(["op": "verify", "alg": .string(alg.rawValue), "jwk": jwk, "token": .string(parts.joined(separator: "."))])
        }
        let responses = try Interop.joserfc(requests)
        for (i, alg) in Self.algorithms.enumerated() {
            let good = responses[2 * i], bad = responses[2 * i + 1]
            #expect(good["ok"] == .bool(true), "\(alg): joserfc refused our token: \(good["error"].string)")
            let claims = try JSONSerialization.jsonObject(with: Data(good["payload"].string.utf8)) as? [String: Any]
            #expect(claims?["sub"] as? String == "ours")
            #expect((claims?["n"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
            #expect(good["header"]["alg"].string == alg.rawValue && good["header"]["kid"].string == "ours-\(alg.rawValue)")
            #expect(bad["ok"] == .bool(false), "\(alg): joserfc accepted a tampered token")
        }
    }

    /// Our exported private JWKs work in joserfc: it signs with them, we verify with the public half.
    @Test func ourPrivateKeysSignThere() throws {
        var keys: [JWK] = []
        var requests: [VJSON] = []
        for alg in Self.algorithms {
            let key = try Self.key(for: alg)
            keys.append(key)
            requests.append([
                "op": "sign_with", "alg": .string(alg.rawValue), "jwk": try Self.jwk(key, includePrivate: true),
                "payload": "payload for \(alg.rawValue) ’",
            ])
        }
        let responses = try Interop.joserfc(requests)
        for ((alg, key), response) in zip(zip(Self.algorithms, keys), responses) {
            let verified = try JWTVerifier(key: key.publicKey).verifySignature(response["token"].string)
            #expect(verified.header.algorithm == alg)
            #expect(verified.payload == Array("payload for \(alg.rawValue) ’".utf8))
        }
    }
}
