/// A JWK Set (RFC 7517 §5): the trusted keys a verifier picks from by `kid`.
///
/// Keys that cannot be used (bad members, weak keys, unsupported types) do not make the whole
/// set unreadable: they are kept in ``rejected`` with the reason, and a token naming such a
/// key gets that reason in its `key_not_found` error, and still makes its `kid` ambiguous.
///
/// A set may hold HMAC secrets (`oct`) beside public keys: each key decides its own algorithms
/// (a public key never verifies HS*, a secret never RS*/ES*/EdDSA), so mixing them gives no
/// algorithm confusion. A set with secrets is never published: ``jsonString(includePrivate:pretty:)``
/// refuses it (and Identity's remote JWKS refuses a fetched set that holds one).
public struct JWKSet: Sendable {
    /// Bounds on JWKS documents.
    public struct Limits: Sendable, Hashable {
        public var maxBytes: Int
        public var maxKeys: Int
        public init(maxBytes: Int = 512 * 1024, maxKeys: Int = 256) { self.maxBytes = maxBytes; self.maxKeys = maxKeys }
        public static let `default` = Limits()
    }

    /// The usable keys, in document order.
    public private(set) var keys: [JWK]
    /// Keys that were refused while reading, with their `kid` (if any) and the reason.
    public private(set) var rejected: [(keyID: String?, error: TokenError)]

    /// A set of already-loaded keys, with the keys refused while reading them (whose kids stay
    /// ambiguous when a usable key shares them).
    public init(keys: [JWK], rejected: [(keyID: String?, error: TokenError)] = []) throws {
        self.keys = keys
        self.rejected = rejected
    }

    /// Reads `{"keys":[...]}`.
    /// - Throws: `invalid_key` for a document that is not a JWK Set or exceeds the limits.
    public init(json: String, limits: Limits = .default) throws {
        try self.init(jsonBytes: Array(json.utf8), limits: limits)
    }

    public init(jsonBytes bytes: [UInt8], limits: Limits = .default) throws {
        guard bytes.count <= limits.maxBytes else {
            throw TokenError.invalidKey("JWKS is \(bytes.count) bytes; the limit is \(limits.maxBytes)")
        }
        let doc = try JWK.parseJSON(bytes, what: "JWKS", limits: JSONLimits(maxBytes: limits.maxBytes, maxDepth: 8, maxTopLevelMembers: 64))
        // Count the keys on the jansson tree before building Swift values or reading any key.
        if let raw = doc.member("keys"), let count = JSONDocument.arrayCount(raw), count > limits.maxKeys {
            throw TokenError.invalidKey("JWKS has \(count) keys; the limit is \(limits.maxKeys)")
        }
        guard let keysMember = doc.object()["keys"] else { throw TokenError.invalidKey("JWKS has no \"keys\" member") }
        guard let array = keysMember.arrayValue else { throw TokenError.invalidKey("JWKS \"keys\" is a \(keysMember.typeName), not an array") }
        keys = []
        rejected = []
        for (i, entry) in array.enumerated() {
            guard let o = entry.objectValue else {
                rejected.append((nil, TokenError.invalidKey("key \(i) is a \(entry.typeName), not an object")))
                continue
            }
            do { keys.append(try JWK(jsonObject: o)) } catch let e as TokenError { rejected.append((o["kid"]?.stringValue, e)) }
        }
    }

    /// Keys that may verify `alg` for a token whose header carries `kid` (or none). Every key
    /// returned has passed ``JWK/check(_:for:)`` for `.verify`.
    ///
    /// - Throws: `key_not_found` when no key has that `kid` (never a fall-back to another key),
    ///   when the `kid` is ambiguous, or when no key allows the algorithm; the error says why,
    ///   including the reason a matching key was refused on load. `algorithm_not_allowed` when
    ///   the key named by `kid` does not allow `alg` (its `alg`, `use` or `key_ops`).
    public func candidates(keyID: String?, algorithm alg: JWSAlgorithm) throws -> [JWK] {
        if let keyID {
            let matches = keys.filter { $0.keyID == keyID && $0.use != "enc" }
            let shown = keyID.count > 64 ? String(keyID.prefix(64)) + "…" : keyID
            if matches.isEmpty {
                if let refused = rejected.first(where: { $0.keyID == keyID }) {
                    throw TokenError(.keyNotFound, "key \"\(shown)\" was refused: \(refused.error.message)")
                }
                if let enc = keys.first(where: { $0.keyID == keyID }) {
                    try enc.check(alg, for: .verify)
                }
                throw TokenError(.keyNotFound, "no trusted key has kid \"\(shown)\"")
            }
            // A key refused on load still shares the kid: the set is ambiguous, whichever key survived.
            let sharing = matches.count + rejected.filter { $0.keyID == keyID }.count
            if sharing > 1 {
                throw TokenError(.keyNotFound, "kid \"\(shown)\" matches \(sharing) keys in the set; refusing an ambiguous choice")
            }
            try matches[0].check(alg, for: .verify)
            return matches
        }
        let usable = keys.filter { (try? $0.check(alg, for: .verify)) != nil }
        if usable.isEmpty {
            if keys.count == 1 { try keys[0].check(alg, for: .verify) }
            throw TokenError(.keyNotFound, "token has no kid and no trusted key allows \(alg.rawValue)")
        }
        return usable
    }

    /// The set as JSON: public halves only unless `includePrivate`.
    /// - Throws: `invalid_key` without `includePrivate` when the set holds a secret (`oct`):
    ///   a public set never carries one.
    public func jsonString(includePrivate: Bool = false, pretty: Bool = false) throws -> String {
        if !includePrivate, keys.contains(where: { $0.keyType == .oct }) {
            throw TokenError.invalidKey("the key set holds an HMAC secret (oct); a public JWKS never carries secrets")
        }
        let v = JSONValue.object([
            "keys": .array(
                try keys.map {
                    .object(
                        try ($0.isPrivate && !includePrivate && $0.keyType != .oct ? $0.publicKey : $0).jsonObject(includePrivate: includePrivate))
                })
        ])
        return pretty ? v.prettyString() : v.jsonString
    }
}
