import Foundation
import Testing
@testable import JOSE

/// Timing: MAC comparisons go through ``ConstantTime/equals(_:_:)`` (OpenSSL
/// `CRYPTO_memcmp`). Proven by counting its calls on the verify path with the debug-only
/// ComparisonProbe, not by measuring time.
@Suite struct ConstantTimeTests {
    @Test func equalsComparesLengthAndEveryByte() {
        let a: [UInt8] = Array(0..<32)
        var first = a; first[0] ^= 1
        var last = a; last[31] ^= 0x80
        #expect(ConstantTime.equals(a, a))
        #expect(!ConstantTime.equals(a, first))
        #expect(!ConstantTime.equals(a, last))
        #expect(!ConstantTime.equals(a, Array(a.dropLast())))
        #expect(!ConstantTime.equals(a, a + [0]))
        #expect(ConstantTime.equals([], []))
        #expect(!ConstantTime.equals([], [0]))
    }

    #if DEBUG
        static func tampered(_ token: String, flipping index: (Int) -> Int) -> String {
            let parts = token.split(separator: ".").map(String.init)
            var sig = try! Base64URL.decode(parts[2], what: "signature")
            sig[index(sig.count)] ^= 1
            return parts[0] + "." + parts[1] + "." + Base64URL.encode(sig)
        }

        @Test(arguments: [JWSAlgorithm.hs256, .hs384, .hs512])
        func hmacVerificationUsesConstantTimeEquals(alg: JWSAlgorithm) throws {
            let key = try JWK(hmacSecret: Array(repeating: 7, count: 64))
            let token = try JWTSigner(key: key, algorithm: alg).sign(["sub": "x"])
            let verifier = try JWTVerifier(key: key)

            let valid = ComparisonProbe()
            let claims = try ComparisonProbe.$current.withValue(valid) { try verifier.verify(token).claims }
            #expect(claims.subject == "x")
            #expect(valid.count == 1)

            // A MAC wrong in its first or in its last byte: the same single comparison decides.
            for index in [{ (_: Int) in 0 }, { (n: Int) in n - 1 }] {
                let probe = ComparisonProbe()
                ComparisonProbe.$current.withValue(probe) {
                    #expect(throws: TokenError(.invalidSignature, "")) { try verifier.verify(Self.tampered(token, flipping: index)) }
                }
                #expect(probe.count == 1)
            }
        }

        @Test func probeCountsOnlyWhereBound() throws {
            // Signature algorithms verify inside OpenSSL: no MAC comparison on their path.
            let ec = try JWK.generate(curve: .p256)
            let token = try JWTSigner(key: ec).sign(["sub": "x"])
            let probe = ComparisonProbe()
            try ComparisonProbe.$current.withValue(probe) { _ = try JWTVerifier(key: ec.publicKey).verify(token) }
            #expect(probe.count == 0)
            // Ed25519 private JWKs: the given x is checked against the derived one in constant time.
            let ed = try JWK.generate(curve: .ed25519)
            let json = try ed.jsonString(includePrivate: true)
            let edProbe = ComparisonProbe()
            try ComparisonProbe.$current.withValue(edProbe) { _ = try JWK(json: json) }
            #expect(edProbe.count == 1)
        }
    #endif
}
