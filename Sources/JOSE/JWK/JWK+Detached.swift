extension JWK {
    /// How a detached signature is encoded.
    public enum SignatureEncoding: Sendable, Hashable {
        /// As in JWS (RFC 7518 §3.4): ECDSA as r ‖ s; other schemes as their bytes.
        case jws
        /// ECDSA as a DER ECDSA-Sig-Value (X9.62), as WebAuthn assertions and attestations and
        /// X.509 carry it; other schemes as their bytes.
        case der
    }

    /// Verifies a signature over `data` made outside JWS (a WebAuthn assertion, an attestation),
    /// through the same OpenSSL verification and key rules as a token: the key must allow
    /// `algorithm` (``check(_:for:)``).
    /// - Returns: whether the signature verifies.
    /// - Throws: `algorithm_not_allowed` when the key does not allow `algorithm`;
    ///   `invalid_signature` for a signature of impossible shape; `internal_error` if OpenSSL fails.
    public func verify(signature: [UInt8], over data: [UInt8], algorithm: JWSAlgorithm, encoding: SignatureEncoding = .jws) throws -> Bool {
        try check(algorithm, for: .verify)
        return try signature.withUnsafeBytes { s in
            try data.withUnsafeBytes { d in
                encoding == .der ? try material.verifyDER(algorithm, signature: s, data: d) : try material.verify(algorithm, signature: s, data: d)
            }
        }
    }
}
