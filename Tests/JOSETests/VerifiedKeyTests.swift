import Foundation
import JOSE
import Testing

/// A verified token carries the trusted key that verified it: the one whose signature matched,
/// also when several keys without a kid allow the algorithm.
@Suite struct VerifiedKeyTests {
    @Test func theKeyThatVerifiedIsReturnedAmongKidlessKeys() throws {
        let first = try JWK.generate(curve: .p256), second = try JWK.generate(curve: .p256)
        let token = try JWTSigner(key: second).sign(["sub": "42"])
        let verifier = JWTVerifier(keys: try JWKSet(keys: [first.publicKey, second.publicKey]))

        let verified = try verifier.verify(token)
        #expect(try verified.key.thumbprint() == second.publicKey.thumbprint())
        #expect(try verified.key.thumbprint() != first.publicKey.thumbprint())
        #expect(!verified.key.isPrivate && verified.keyID == nil)

        let signatureOnly = try verifier.verifySignature(token)
        #expect(try signatureOnly.key.thumbprint() == second.publicKey.thumbprint())
    }

    @Test func theKeyIDComesFromTheKey() throws {
        var key = try JWK.generate(curve: .p256)
        key.keyID = "k2"
        var other = try JWK.generate(curve: .p256)
        other.keyID = "k1"
        let token = try JWTSigner(key: key).sign(["sub": "42"])
        let verified = try JWTVerifier(keys: try JWKSet(keys: [other.publicKey, key.publicKey])).verify(token)
        #expect(verified.keyID == "k2" && verified.key.keyID == "k2")
    }
}
