#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif

/// A verified token: its header, its claims, and the key that verified it.
public struct VerifiedToken<Claims: Sendable>: Sendable {
    public let header: JOSEHeader
    public let claims: Claims
    /// The trusted key that verified the signature.
    public let key: JWK
    /// The `kid` of the key that verified the signature, if it has one.
    public var keyID: String? { key.keyID }
}

/// A JWS whose signature verified; the payload need not be JSON and no claim was checked.
public struct VerifiedJWS: Sendable {
    public let header: JOSEHeader
    public let payload: [UInt8]
    /// The payload segment as received (base64url).
    public let payloadBase64URL: String
    /// The trusted key that verified the signature.
    public let key: JWK
    /// The `kid` of the key that verified the signature, if it has one.
    public var keyID: String? { key.keyID }
}

/// Verifies compact JWTs against trusted keys.
///
/// The key decides the algorithm: the header's `alg` only picks among those the key allows
/// (and ``VerifierOptions/algorithms`` narrows them further). A `kid` that matches no key is
/// `key_not_found`, never a fall-back to another key. Header-supplied keys (`jwk`, `jku`,
/// `x5u`, `x5c`), `alg: none`, unknown `crit` and `b64: false` are refused.
///
/// ```swift
/// let keys = try JWKSet(json: String(contentsOfFile: "jwks.json", encoding: .utf8))
/// let verifier = JWTVerifier(keys: keys, options: VerifierOptions(issuers: ["https://issuer"], audiences: ["app"]))
/// let token = try verifier.verify(jwt)
/// print(token.claims.subject ?? "")
/// ```
///
/// - Throws: a ``TokenError`` with one of the codes `malformed`, `unsupported_algorithm`,
///   `algorithm_not_allowed`, `key_not_found`, `invalid_signature`, `expired`,
///   `not_yet_valid`, `invalid_issuer`, `invalid_audience`, `missing_claim`, `invalid_claim`.
public struct JWTVerifier: Sendable {
    public let keys: JWKSet
    /// What is checked beyond the signature. Changing it empties the ``cache`` (a new, empty
    /// one with the same limits takes its place), since cached answers were given under the old options.
    public var options: VerifierOptions {
        didSet { cache = cache.map { VerifiedTokenCache(limits: $0.limits) } }
    }
    /// The tokens this verifier has verified, when made with cache limits; `nil` otherwise.
    public private(set) var cache: VerifiedTokenCache?

    /// - Parameter cache: when given, successful verifications are kept (bounded by these limits)
    ///   and the same token is answered from the cache after re-checking `exp` and `nbf` only
    ///   (``VerifiedTokenCache``).
    public init(keys: JWKSet, options: VerifierOptions = VerifierOptions(), cache: VerifiedTokenCacheLimits? = nil) {
        self.keys = keys
        self.options = options
        self.cache = cache.map { VerifiedTokenCache(limits: $0) }
    }

    /// A verifier trusting exactly one key.
    public init(key: JWK, options: VerifierOptions = VerifierOptions(), cache: VerifiedTokenCacheLimits? = nil) throws {
        self.init(keys: try JWKSet(keys: [key]), options: options, cache: cache)
    }

    /// Verifies the signature and the claims; returns the claims as a ``ClaimSet``.
    public func verify(_ token: String) throws -> VerifiedToken<ClaimSet> {
        if let cache { return try cachedVerification(token, cache).token }
        let (jws, doc, key) = try verifyClaims(token)
        return VerifiedToken(header: jws.header, claims: ClaimSet(document: doc), key: key)
    }

    /// Verifies the signature and the claims, then decodes the claims into `Claims`
    /// straight from the parsed JSON.
    public func verify<Claims: Decodable & Sendable>(_ token: String, as type: Claims.Type) throws -> VerifiedToken<Claims> {
        if let cache {
            let entry = try cachedVerification(token, cache)
            return VerifiedToken(
                header: entry.token.header, claims: try ClaimsDecoder.decode(Claims.self, from: entry.document),
                key: entry.token.key)
        }
        let (jws, doc, key) = try verifyClaims(token)
        return VerifiedToken(header: jws.header, claims: try ClaimsDecoder.decode(Claims.self, from: doc), key: key)
    }

    /// From the cache when it holds `token` and `exp`/`nbf` still pass; else the full
    /// verification, whose success is then cached.
    private func cachedVerification(_ token: String, _ cache: VerifiedTokenCache) throws -> VerifiedTokenCache.Entry {
        if let hit = cache.lookup(token, now: options.clock.now().timeIntervalSince1970, leeway: max(0, options.leeway)) {
            return hit
        }
        let (jws, doc, key) = try verifyClaims(token)
        // Both dates were read and checked by ClaimValidator already: `try?` cannot fail here.
        let entry = VerifiedTokenCache.Entry(
            token: VerifiedToken(header: jws.header, claims: ClaimSet(document: doc), key: key), document: doc,
            expiresAt: (try? ClaimValidator.numericDate(doc, "exp")) ?? nil,
            notBefore: (try? ClaimValidator.numericDate(doc, "nbf")) ?? nil,
            bytes: 2 * token.utf8.count)
        cache.insert(token, entry)
        return entry
    }

    /// Verifies the signature only, for any JWS: the payload need not be JSON and no claim is
    /// checked. Every other rule (key decides the algorithm, crit, b64, strict base64url, sizes) holds.
    public func verifySignature(_ token: String) throws -> VerifiedJWS {
        let (jws, key) = try verifiedJWS(token)
        return VerifiedJWS(header: jws.header, payload: jws.payload, payloadBase64URL: jws.payloadSegment, key: key)
    }

    private func verifyClaims(_ token: String) throws -> (CompactJWS, JSONDocument, JWK) {
        let (jws, key) = try verifiedJWS(token)
        if let expected = options.type {
            func norm(_ s: String) -> String {
                let l = s.lowercased()
                return l.hasPrefix("application/") ? String(l.dropFirst(12)) : l
            }
            guard let typ = jws.header.type, norm(typ) == norm(expected) else {
                throw TokenError(
                    .invalidClaim, "token typ is \(jws.header.type.map { "\"\($0.prefix(32))\"" } ?? "absent"); expected \"\(expected)\"",
                    claim: "typ")
            }
        }
        let doc = try JSONDocument(parsing: jws.payload, limits: options.limits.claims, what: "token payload")
        try ClaimValidator.validate(doc, options: options)
        return (jws, doc, key)
    }

    private func verifiedJWS(_ token: String) throws -> (CompactJWS, JWK) {
        let jws = try CompactJWS(token, limits: options.limits)
        let alg = jws.header.algorithm
        if let allowed = options.algorithms, !allowed.contains(alg) {
            throw TokenError(
                .algorithmNotAllowed,
                "token alg \(alg.rawValue) is not one of the accepted \(allowed.sorted().map(\.rawValue).joined(separator: ", "))")
        }
        let candidates = try keys.candidates(keyID: jws.header.keyID, algorithm: alg)
        var lastError: TokenError? = nil
        for key in candidates {  // each already allows `alg` for verification
            do {
                let ok = try jws.signingInput.withUnsafeBytes { data in
                    try jws.signature.withUnsafeBytes { sig in try key.material.verify(alg, signature: sig, data: data) }
                }
                if ok { return (jws, key) }
                lastError = TokenError(
                    .invalidSignature, "signature does not verify with \(key.keyID.map { "key \"\($0)\"" } ?? "the key") (\(alg.rawValue))")
            } catch let e as TokenError {
                lastError = e
            }
        }
        if candidates.count > 1, lastError?.code == .invalidSignature {
            throw TokenError(
                .invalidSignature, "signature does not verify with any of the \(candidates.count) trusted keys that allow \(alg.rawValue)")
        }
        throw lastError ?? TokenError(.keyNotFound, "no trusted key can verify \(alg.rawValue)")
    }
}
