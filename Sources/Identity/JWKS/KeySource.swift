import Foundation
public import JOSE

/// Where a provider's verification keys come from: a fixed set (a file, a secret) or a remote JWKS.
public enum KeySource: Sendable {
    case keys(JWKSet)
    case remote(RemoteJWKS)

    /// Reads `--jwks`-style input: an `http(s)://` URL becomes a ``RemoteJWKS``, anything else
    /// is a file path holding a JWKS (or a single JWK).
    /// - Throws: `invalid_configuration` for a bad URL; `invalid_key`/`invalid_input` for a bad file.
    public static func urlOrFile(_ value: String, transport: any HTTPTransport, clock: TokenClock = .system,
                                 policy: RemoteJWKS.Policy = .default) throws -> KeySource {
        let lower = value.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
            return .remote(try RemoteJWKS(url: value, transport: transport, clock: clock, policy: policy))
        }
        guard let data = FileManager.default.contents(atPath: value) else {
            throw TokenError(.invalidInput, "cannot read JWKS file \(value)")
        }
        let bytes = Array(data)
        if let set = try? JWKSet(jsonBytes: bytes), !set.keys.isEmpty || !set.rejected.isEmpty { return .keys(set) }
        if let key = try? JWK(json: String(decoding: bytes, as: UTF8.self)) { return .keys(try JWKSet(keys: [key.isPrivate && key.keyType != .oct ? key.publicKey : key])) }
        return .keys(try JWKSet(jsonBytes: bytes))
    }

    /// Verifies a JWT signature and claims with these keys. With a remote JWKS, a `key_not_found`
    /// refetches the keys once (subject to the cool-down) and tries again, so key rotations are
    /// picked up without waiting for the cache to expire.
    /// - Throws: JOSE's token codes, `provider_unavailable`.
    public func verify(_ token: String, options: VerifierOptions) async throws -> VerifiedToken<ClaimSet> {
        switch self {
        case .keys(let set):
            return try JWTVerifier(keys: set, options: options).verify(token)
        case .remote(let remote):
            let set = try await remote.keys()
            do {
                return try JWTVerifier(keys: set, options: options).verify(token)
            } catch let e as TokenError where e.code == .keyNotFound {
                let fresh = try await remote.keysAfterUnknownKey()
                return try JWTVerifier(keys: fresh, options: options).verify(token)
            }
        }
    }
}
