public import JOSE

/// Companion keys: keys of other algorithms beside the active key (an OpenID Provider's RS256
/// key for ID tokens, OpenID Connect's mandatory algorithm), published in the JWKS with it,
/// rotated and retired with it (``rotate()``), and never signing access tokens.
extension KeyRing {
    /// The key that signs with `algorithm`: the active key when it has that algorithm, else the
    /// newest live companion of that algorithm, made and stored when the ring has none (a
    /// rotation by a process without ``SessionServiceConfiguration/companionAlgorithms`` retires
    /// the companions and makes none).
    /// - Throws: `invalid_configuration` for a symmetric algorithm; `store_unavailable`.
    public func key(for algorithm: JWSAlgorithm) async throws -> SigningKeyRecord {
        let active = try await activeKey()
        if active.algorithm == algorithm.rawValue { return active }
        let keys = try await store.read { tx in try await tx.signingKeys() }
        if let found = keys.last(where: { $0.companion && $0.revokedAt == nil && $0.algorithm == algorithm.rawValue }) { return found }
        let record = try makeKeyRecord(algorithm: algorithm, companion: true)
        _ = try await store.transaction { tx in try await tx.insertSigningKey(record) }
        published.reset()
        return record
    }

    /// Makes the companions of ``SessionServiceConfiguration/companionAlgorithms`` the ring lacks.
    /// - Throws: as ``key(for:)``.
    public func ensureCompanions() async throws {
        for algorithm in configuration.companionAlgorithms { _ = try await key(for: algorithm) }
    }

    /// A signer of ID tokens with `algorithm` (``key(for:)``): header `alg`, `kid`, and `typ` `JWT`.
    /// - Throws: as ``key(for:)``; `invalid_configuration` for a sealed key without its master key.
    public func idTokenSigner(algorithm: JWSAlgorithm) async throws -> JWTSigner {
        var signer = try signer(for: try await key(for: algorithm))
        signer.type = "JWT"
        return signer
    }
}
