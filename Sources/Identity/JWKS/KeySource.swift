import Foundation
public import JOSE

/// Where a provider's verification keys come from: a fixed set (a file, a secret) or a remote JWKS.
public enum KeySource: Sendable {
    case keys(JWKSet)
    case remote(RemoteJWKS)

    /// Reads `--jwks`-style input: an `http(s)://` URL becomes a ``RemoteJWKS``, anything else
    /// is a key file (``JOSE/KeyFile``): a JWKS, or one key (JWK, PEM, DER) whose public half is used.
    /// - Throws: `invalid_configuration` for a bad URL; `invalid_key`/`invalid_input` for a bad file.
    public static func urlOrFile(
        _ value: String, transport: any HTTPTransport, clock: TokenClock = .system,
        policy: RemoteJWKS.Policy = .default
    ) throws -> KeySource {
        let lower = value.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            return .remote(try RemoteJWKS(url: value, transport: transport, clock: clock, policy: policy))
        }
        switch try KeyFile.read(path: value) {
        case .set(let set): return .keys(set)
        // A private key's public half is all verification needs.
        case .key(let key): return .keys(try JWKSet(keys: [key.isPrivate && key.keyType != .oct ? key.publicKey : key]))
        }
    }

    /// Verifies a JWT signature and claims with these keys. With a remote JWKS, a `key_not_found`
    /// refetches the keys once (subject to the cool-down) and tries again, so key rotations are
    /// picked up without waiting for the cache to expire.
    /// - Throws: JOSE's token codes, `provider_unavailable`.
    public func verify(_ token: String, options: VerifierOptions) async throws -> VerifiedToken<ClaimSet> {
        try await withKeys { keys, _ in try JWTVerifier(keys: keys, options: options).verify(token) }
    }

    /// Runs `attempt` with the keys and their generation (`RemoteJWKS.keysGeneration`; 0 for a
    /// fixed set). With a remote JWKS, a `key_not_found` refetches the keys once (subject to the
    /// cool-down) and runs `attempt` again with them: the one refetch rule of every verifier.
    func withKeys<T>(_ attempt: (JWKSet, Int) throws -> T) async throws -> T {
        switch self {
        case .keys(let set):
            return try attempt(set, 0)
        case .remote(let remote):
            let (set, generation) = try await remote.keysWithGeneration()
            do {
                return try attempt(set, generation)
            } catch let e as TokenError where e.code == .keyNotFound {
                let (fresh, next) = try await remote.keysAfterUnknownKeyWithGeneration()
                return try attempt(fresh, next)
            }
        }
    }
}
