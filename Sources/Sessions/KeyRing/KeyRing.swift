import Foundation
public import JOSE

/// The signing keys of an issuer, kept in the store: one active key signs, retired keys stay
/// published until every token they signed has expired.
///
/// ```swift
/// let ring = KeyRing(store: store, configuration: config)
/// let info = try await ring.rotate()          // new active key; the old one is retired
/// let jwks = try await ring.jwks()            // what resource servers fetch
/// ```
public struct KeyRing: Sendable {
    public let store: any SessionStore
    public let configuration: SessionServiceConfiguration
    private let cache = SignerCache()
    let published = PublishedKeysCache()

    /// The ring of a store's ``SessionService``.
    public init(store: any SessionStore, configuration: SessionServiceConfiguration) {
        self.store = store
        self.configuration = configuration
    }

    /// The ring of one app's store (``SessionConfiguration/service``).
    public init(store: any SessionStore, configuration: SessionConfiguration) {
        self.init(store: store, configuration: configuration.service)
    }

    /// A key as the ring reports it (no key bytes).
    public struct KeyInfo: Sendable, Hashable {
        public var keyID: String
        public var algorithm: String
        public var sealed: Bool
        public var createdAt: Int64
        public var retiredAt: Int64?
        public var publishUntil: Int64?
        /// The longest access-token lifetime the key signed with, when recorded.
        public var accessTokenLifetime: Int64? = nil
        /// When the key was revoked.
        public var revokedAt: Int64? = nil
        /// A companion key (``SigningKeyRecord/companion``): published, signing ID tokens only.
        public var companion: Bool = false
        public var isActive: Bool { retiredAt == nil && !companion }
    }

    /// Makes a new active key and retires the current one, which stays published for the
    /// longest access-token lifetime it signed with (recorded in the store, whichever process
    /// or app signed) plus the leeway: every token it signed expires by then. The companion keys
    /// (``key(for:)``) retire with it, and new ones of ``SessionServiceConfiguration/companionAlgorithms`` replace them.
    /// - Throws: `invalid_configuration`, `store_unavailable`.
    @discardableResult
    public func rotate() async throws -> KeyInfo {
        try configuration.validate()
        let record = try makeKeyRecord()
        let companions = try configuration.companionAlgorithms.filter { $0 != configuration.signingAlgorithm }.map {
            try makeKeyRecord(algorithm: $0, companion: true)
        }
        let now = configuration.now
        let (fallback, leeway) = (configuration.longestAccessTokenLifetime, configuration.leeway)
        try await store.transaction { tx in
            if let active = try await tx.activeSigningKey() {
                // Keys made before lifetimes were recorded fall back to this process's lifetime.
                let publishUntil = now + (active.accessTokenLifetime ?? fallback) + leeway
                _ = try await tx.retireActiveSigningKey(at: now, publishUntil: publishUntil)
            }
            guard try await tx.insertSigningKey(record) else {
                throw TokenError(.storeUnavailable, "another key became active during the rotation")
            }
            for companion in companions { _ = try await tx.insertSigningKey(companion) }
        }
        published.reset()
        return Self.info(record)
    }

    /// The active key, created on first use when the ring is empty.
    /// - Throws: `invalid_configuration`, `store_unavailable`.
    public func activeKey() async throws -> SigningKeyRecord {
        if let key = try await store.read({ tx in try await tx.activeSigningKey() }) { return key }
        let record = try makeKeyRecord()
        // Several instances may race to create the first key; the store keeps exactly one active.
        return try await store.transaction { tx in
            if try await tx.insertSigningKey(record) { return record }
            guard let winner = try await tx.activeSigningKey() else {
                throw TokenError(.storeUnavailable, "no active signing key after creating one")
            }
            return winner
        }
    }

    /// Revokes a compromised key: it leaves the published JWKS at once, so tokens it signed stop
    /// verifying whatever their `exp`. When it was the active key, a new active key replaces it.
    /// - Returns: the new active key, when one was made.
    /// - Throws: `invalid_input` when no key has `keyID`; `invalid_configuration`, `store_unavailable`.
    @discardableResult
    public func revoke(keyID: String) async throws -> KeyInfo? {
        try configuration.validate()
        let replacement = try makeKeyRecord()
        let now = configuration.now
        let replaced: Bool = try await store.transaction { tx in
            let wasActive = try await tx.activeSigningKey()?.keyID == keyID
            guard try await tx.revokeSigningKey(keyID: keyID, at: now) else {
                throw TokenError(.invalidInput, "no signing key has kid \"\(keyID.prefix(64))\"")
            }
            guard wasActive else { return false }
            guard try await tx.insertSigningKey(replacement) else {
                throw TokenError(.storeUnavailable, "another key became active during the revocation")
            }
            return true
        }
        cache.remove(keyID)
        published.reset()
        return replaced ? Self.info(replacement) : nil
    }

    /// Records that the active key signs tokens of `lifetime` seconds (the issuing app's; a write
    /// only when it is longer than any recorded), inside the issuing transaction.
    func recordUse(of key: SigningKeyRecord, lifetime: Int64, in tx: any SessionStoreTransaction) async throws {
        if (key.accessTokenLifetime ?? 0) < lifetime {
            try await tx.recordSigningKeyUse(keyID: key.keyID, accessTokenLifetime: lifetime)
        }
    }

    /// Every key, oldest first.
    public func keys() async throws -> [KeyInfo] {
        try await store.transaction { tx in try await tx.signingKeys() }.map(Self.info)
    }

    /// The published JWKS: the active key and the retired keys still within their publication time.
    /// - Throws: `store_unavailable`; `invalid_key` if a stored public key is unreadable.
    public func jwks() async throws -> JWKSet {
        let now = configuration.now
        let records = try await store.transaction { tx in try await tx.signingKeys() }
        // Newest first, so the active key leads.
        return try JWKSet(keys: records.filter { $0.isPublished(at: now) }.reversed().map { try JWK(json: $0.publicJWK) })
    }

    /// The published JWKS as the JSON document a `jwks_uri` serves, encoded once and kept the way
    /// ``accessTokenVerifier(options:audiences:)`` keeps its keys: read from the store at most once
    /// per ``SessionServiceConfiguration/publishedKeysCacheSeconds`` of the configuration's clock (a clock
    /// that went back counts as stale), and at once after a rotation or revocation through this
    /// ring; 0 reads it for every call. A key rotated or revoked by another process is published
    /// here within that time.
    /// - Throws: as ``jwks()``.
    public func publishedJWKSDocument() async throws -> [UInt8] {
        let ttl = configuration.publishedKeysCacheSeconds
        let now = configuration.clock.now()
        guard ttl > 0 else { return try await Self.document(jwks()) }
        if let bytes = published.document(at: now, maxAge: ttl) { return bytes }
        let generation = published.generation
        let bytes = try await Self.document(jwks())
        published.install(document: bytes, readAt: now, generation: generation)
        return bytes
    }

    private static func document(_ keys: JWKSet) throws -> [UInt8] { try JSONValue(parsing: keys.jsonString()).jsonBytes }

    /// A verifier of this ring's access tokens with `options`, over the published keys, with the
    /// verified-token cache. The keys are read from the store at most once per
    /// ``SessionServiceConfiguration/publishedKeysCacheSeconds`` (and at once after a rotation or
    /// revocation in this process), so a key revoked by another process stops verifying here
    /// within that time; each new key set starts an empty token cache.
    /// - Throws: as ``jwks()``.
    func accessTokenVerifier(options: VerifierOptions, audiences: Set<String>) async throws -> JWTVerifier {
        let ttl = configuration.publishedKeysCacheSeconds
        if ttl > 0, let v = published.verifier(audiences: audiences, maxAge: ttl) { return v }
        let keys = try await jwks()
        let verifier = JWTVerifier(keys: keys, options: options, cache: ttl > 0 ? VerifiedTokenCacheLimits() : nil)
        if ttl > 0 { published.install(verifier, audiences: audiences) }
        return verifier
    }

    /// A signer for `record` (parsed once per process and key id).
    /// - Throws: `invalid_configuration` when the key is sealed and no (or the wrong) master key is
    ///   set, or when the key is revoked.
    func signer(for record: SigningKeyRecord) throws -> JWTSigner {
        guard record.revokedAt == nil else { throw TokenError(.invalidConfiguration, "signing key \"\(record.keyID)\" is revoked") }
        if let cached = cache.get(record.keyID) { return cached }
        let json: String
        if record.sealed {
            guard let master = configuration.masterKey else {
                throw TokenError(.invalidConfiguration, "signing key \"\(record.keyID)\" is sealed; a master key is needed to use it")
            }
            guard let plain = try Sealer.open(record.privateJWK, key: master, purpose: .signingKey, context: [record.keyID]) else {
                throw TokenError(.invalidConfiguration, "the master key does not open signing key \"\(record.keyID)\"")
            }
            json = String(decoding: plain, as: UTF8.self)
        } else {
            json = record.privateJWK
        }
        let key = try JWK(json: json)
        guard let alg = JWSAlgorithm(rawValue: record.algorithm) else {
            throw TokenError(.invalidConfiguration, "signing key \"\(record.keyID)\" has unknown algorithm \"\(record.algorithm.prefix(16))\"")
        }
        var signer = try JWTSigner(key: key, algorithm: alg, keyID: record.keyID)
        signer.type = "at+jwt"  // RFC 9068 §2.1
        cache.put(record.keyID, signer)
        return signer
    }

    /// A new key of `algorithm` (default the configuration's), active unless `companion`.
    func makeKeyRecord(algorithm: JWSAlgorithm? = nil, companion: Bool = false) throws -> SigningKeyRecord {
        let alg = algorithm ?? configuration.signingAlgorithm
        var key: JWK
        switch alg {
        case .es256: key = try JWK.generate(curve: .p256)
        case .es384: key = try JWK.generate(curve: .p384)
        case .es512: key = try JWK.generate(curve: .p521)
        case .edDSA: key = try JWK.generate(curve: .ed25519)
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: key = try JWK.generateRSA(bits: 2048)
        default: throw TokenError(.invalidConfiguration, "signing algorithm must be asymmetric, got \(alg.rawValue)")
        }
        key.algorithm = alg.rawValue
        key.use = "sig"
        let kid = try key.thumbprint()  // RFC 7638: stable, derived from the public key
        key.keyID = kid
        let privateJSON = try key.jsonString(includePrivate: true)
        let stored: String
        if let master = configuration.masterKey {
            stored = try Sealer.seal(Array(privateJSON.utf8), key: master, purpose: .signingKey, context: [kid])
        } else {
            stored = privateJSON
        }
        return SigningKeyRecord(
            keyID: kid, algorithm: alg.rawValue, publicJWK: try key.publicKey.jsonString(),
            privateJWK: stored, sealed: configuration.masterKey != nil, createdAt: configuration.now,
            accessTokenLifetime: configuration.longestAccessTokenLifetime, companion: companion)
    }

    static func info(_ r: SigningKeyRecord) -> KeyInfo {
        KeyInfo(
            keyID: r.keyID, algorithm: r.algorithm, sealed: r.sealed, createdAt: r.createdAt, retiredAt: r.retiredAt,
            publishUntil: r.publishUntil, accessTokenLifetime: r.accessTokenLifetime, revokedAt: r.revokedAt, companion: r.companion)
    }
}

/// Parsed signers by key id. A reference type shared by copies of one ``KeyRing``.
final class SignerCache: @unchecked Sendable {
    private let lock = NSLock()
    private var signers: [String: JWTSigner] = [:]

    func get(_ kid: String) -> JWTSigner? { lock.withLock { signers[kid] } }
    func put(_ kid: String, _ signer: JWTSigner) { lock.withLock { signers[kid] = signer } }
    func remove(_ kid: String) { lock.withLock { _ = signers.removeValue(forKey: kid) } }
}

/// The published keys' verifiers by audience set, each with its verified-token cache, and when
/// they were read; the published JWKS document and when it was read. A reference type shared by
/// copies of one ``KeyRing``.
final class PublishedKeysCache: @unchecked Sendable {
    private let lock = NSLock()
    private var readAt: ContinuousClock.Instant? = nil
    private var verifiers: [Set<String>: JWTVerifier] = [:]
    private var jwksDocument: (bytes: [UInt8], readAt: Date)? = nil
    private var resets: UInt64 = 0

    /// The verifier for `audiences` if the keys behind it were read less than `maxAge` seconds ago.
    func verifier(audiences: Set<String>, maxAge: Double) -> JWTVerifier? {
        lock.withLock {
            guard let readAt, readAt.duration(to: .now) < .milliseconds(Int64(maxAge * 1000)) else {
                verifiers.removeAll()
                return nil
            }
            return verifiers[audiences]
        }
    }

    /// Keeps `verifier` (over keys read now) for `audiences`.
    func install(_ verifier: JWTVerifier, audiences: Set<String>) {
        lock.withLock {
            if readAt == nil || verifiers.isEmpty { readAt = .now }
            verifiers[audiences] = verifier
        }
    }

    /// The published JWKS document if it was read less than `maxAge` seconds before `now` (by the
    /// configuration's clock; a `now` before the read counts as stale).
    func document(at now: Date, maxAge: Double) -> [UInt8]? {
        lock.withLock {
            guard let kept = jwksDocument, now >= kept.readAt, now.timeIntervalSince(kept.readAt) < maxAge else { return nil }
            return kept.bytes
        }
    }

    /// Keeps the document read at `readAt`, unless a rotation or revocation here reset the cache
    /// since the read began (`generation` is ``generation`` then): the document may predate it.
    func install(document bytes: [UInt8], readAt: Date, generation: UInt64) {
        lock.withLock {
            if generation == resets { jwksDocument = (bytes, readAt) }
        }
    }

    /// How many times the cache was reset.
    var generation: UInt64 { lock.withLock { resets } }

    func reset() {
        lock.withLock {
            readAt = nil; verifiers.removeAll()
            jwksDocument = nil; resets &+= 1
        }
    }
}
