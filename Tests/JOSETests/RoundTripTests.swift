import Foundation
import Testing
@testable import JOSE

@Suite struct RoundTripTests {
    static let fixedNow: Int64 = 1_790_000_000

    static func key(for alg: JWSAlgorithm) throws -> JWK {
        switch alg.scheme {
        case .hmac: return try JWK.generateSecret(bytes: alg.hashLength)
        case .rsaPKCS1, .rsaPSS: return try JWK.generateRSA(bits: 2048)
        case .ecdsa: return try JWK.generate(curve: alg.curve!)
        case .eddsa: return try JWK.generate(curve: .ed25519)
        }
    }

    @Test(arguments: JWSAlgorithm.allCases)
    func signThenVerify(alg: JWSAlgorithm) throws {
        var key = try Self.key(for: alg)
        key.keyID = "k1"
        let signer = try JWTSigner(key: key, algorithm: alg)
        let token = try signer.sign(["sub": "42", "exp": .int(Self.fixedNow + 60), "big": .int(9_007_199_254_740_993)])
        #expect(token.split(separator: ".").count == 3)
        let verifier = try JWTVerifier(key: key.publicKey, options: VerifierOptions(clock: .fixed(unixSeconds: Self.fixedNow)))
        let verified = try verifier.verify(token)
        #expect(verified.claims.subject == "42")
        #expect(verified.claims["big"] == .int(9_007_199_254_740_993))
        #expect(verified.header.algorithm == alg)
        #expect(verified.keyID == "k1")

        // One flipped signature bit must fail.
        var parts = token.split(separator: ".").map(String.init)
        var sig = try Base64URL.decode(parts[2], what: "sig")
        sig[sig.count / 2] ^= 1
        parts[2] = Base64URL.encode(sig)
        #expect(throws: TokenError(.invalidSignature, "")) { try verifier.verify(parts.joined(separator: ".")) }

        // Expired at exactly exp.
        let late = try JWTVerifier(key: key.publicKey, options: VerifierOptions(clock: .fixed(unixSeconds: Self.fixedNow + 60)))
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try late.verify(token) }
    }
}
