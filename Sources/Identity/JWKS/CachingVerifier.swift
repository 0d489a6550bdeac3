public import JOSE
import Synchronization

/// Verifies JWTs with a ``KeySource`` and JOSE's verified-token cache, for a resource server that
/// sees the same tokens on request after request.
///
/// One ``JWTVerifier`` (and so one cache) serves one key set: when a remote JWKS brings other
/// keys (a rotation, a revoked key gone), the next verification starts an empty cache, so no
/// answer outlives the keys that gave it. A `key_not_found` refetches a remote JWKS once, as
/// ``KeySource/verify(_:options:)`` does.
///
/// ```swift
/// let verifier = CachingVerifier(source: .remote(jwks), options: options)
/// let token = try await verifier.verify(bearer)
/// ```
public final class CachingVerifier: Sendable {
    public let source: KeySource
    public let options: VerifierOptions
    public let limits: VerifiedTokenCacheLimits
    private let current = Mutex<(generation: Int, verifier: JWTVerifier)?>(nil)

    public init(source: KeySource, options: VerifierOptions, limits: VerifiedTokenCacheLimits = VerifiedTokenCacheLimits()) {
        self.source = source
        self.options = options
        self.limits = limits
    }

    /// The cache of the current key set (`nil` before the first verification).
    public var cache: VerifiedTokenCache? { current.withLock { $0?.verifier.cache } }

    /// Verifies the signature and the claims (from the cache when it holds `token`).
    /// - Throws: JOSE's token codes; `provider_unavailable` when a remote JWKS cannot be had.
    public func verify(_ token: String) async throws -> VerifiedToken<ClaimSet> {
        try await source.withKeys { keys, generation in try verifier(for: keys, generation: generation).verify(token) }
    }

    /// The verifier of key set number `generation`, made (with an empty cache) when the set is new.
    private func verifier(for keys: JWKSet, generation: Int) -> JWTVerifier {
        current.withLock { state in
            if let state, state.generation == generation { return state.verifier }
            let made = JWTVerifier(keys: keys, options: options, cache: limits)
            state = (generation, made)
            return made
        }
    }
}
