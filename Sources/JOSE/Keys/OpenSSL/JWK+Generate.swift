internal import COpenSSL

extension JWK {
    /// Generates an RSA key pair (2048 bits or more, e = 65537).
    public static func generateRSA(bits: Int = 2048) throws -> JWK {
        guard bits >= 2048, bits <= 16384 else { throw TokenError.invalidKey("RSA keys must have 2048 to 16384 bits; asked for \(bits)") }
        ERR_clear_error()
        guard let p = ctk_keygen_rsa(UInt32(bits)) else { throw OpenSSLError.fail(.internalError, "RSA key generation failed") }
        return try JWK(evp: EVPKey(takingOwnershipOf: p), isPrivate: true)
    }

    /// Generates an EC (P-256/384/521) or Ed25519 key pair.
    public static func generate(curve: Curve) throws -> JWK {
        ERR_clear_error()
        let p = curve == .ed25519 ? ctk_keygen_ed25519() : ctk_keygen_ec(curve.openSSLGroupName)
        guard let p else { throw OpenSSLError.fail(.internalError, "\(curve.rawValue) key generation failed") }
        return try JWK(evp: EVPKey(takingOwnershipOf: p), isPrivate: true)
    }

    /// Generates a random HMAC secret of `bytes` bytes (at least 32).
    public static func generateSecret(bytes: Int = 32) throws -> JWK {
        try JWK(hmacSecret: SecureRandom.bytes(bytes))
    }
}
