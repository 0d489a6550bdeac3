import Testing
import JOSE

/// RFC 9864's fully specified `Ed25519` verifies with Ed25519 keys as `EdDSA` does.
@Suite struct FullySpecifiedAlgorithmTests {
    /// RFC 8037 A.1's public key.
    static let publicJWK = #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    /// RFC 8037 A.4's payload under `{"alg":"Ed25519"}`, signed with RFC 8037 A.1's private key by
    /// pyca/cryptography (an independent implementation).
    static let token =
        "eyJhbGciOiJFZDI1NTE5In0.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
        + "UxhIYLHGg39NVCLpQAVD_UcfOmnGSCzLFZoXYkLiIbFccmOb_qObsgjzLKsfJw-4NlccUgvYrEHrRbNV0HcZAQ"

    @Test func ed25519AlgorithmVerifies() throws {
        #expect(try JWSAlgorithm.parse("Ed25519") == .ed25519)
        let key = try JWK(json: Self.publicJWK)
        #expect(key.allowedAlgorithms == [.edDSA, .ed25519])
        let result = try JWTVerifier(key: key).verifySignature(Self.token)
        #expect(result.header.algorithm == .ed25519)
        // Ed25519's signature is deterministic: RFC 8037 A.1's private key signs the same bytes.
        let privateKey = try JWK(
            json:
                #"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
        var signer = try JWTSigner(key: privateKey, algorithm: .ed25519)
        signer.type = nil
        #expect(try signer.signJWS(payload: Array("Example of Ed25519 signing".utf8)) == Self.token)
    }

    @Test func aKeyPinnedToOneNameAllowsOnlyThatName() throws {
        let pinned = try JWK(json: #"{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
        #expect(throws: TokenError(.algorithmNotAllowed, "")) { try JWTVerifier(key: pinned).verifySignature(Self.token) }
        // An EC or RSA key never verifies it.
        let ec = try JWK.generate(curve: .p256).publicKey
        #expect(throws: TokenError.self) { try JWTVerifier(key: ec).verifySignature(Self.token) }
    }
}
