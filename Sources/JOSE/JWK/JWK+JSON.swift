#if canImport(FoundationEssentials)
import FoundationEssentials   // not all of Foundation: see docs/performance.md, "Start-up"
#else
import Foundation
#endif
internal import COpenSSL

extension JWK {
    /// Reads a JWK (RFC 7517) from JSON text: RSA, EC, OKP (Ed25519) or oct, public or private.
    ///
    /// - Throws: `invalid_key` for missing or malformed members, unsupported types or curves,
    ///   and keys refused by policy (see ``JWK``).
    public init(json: String) throws {
        let doc = try JWK.parseJSON(Array(json.utf8), what: "JWK")
        try self.init(jsonObject: doc.object())
    }

    /// Reads a JWK from an already-parsed JSON object.
    public init(jsonObject o: JSONObject) throws {
        guard let ktyValue = o["kty"] else { throw TokenError.invalidKey("JWK has no \"kty\"") }
        guard let kty = ktyValue.stringValue else { throw TokenError.invalidKey("JWK \"kty\" is a \(ktyValue.typeName), not a string") }
        func bytes(_ name: String, required: Bool = true) throws -> [UInt8]? {
            guard let v = o[name] else {
                if required { throw TokenError.invalidKey("\(kty) JWK has no \"\(name)\"") }
                return nil
            }
            guard let s = v.stringValue else { throw TokenError.invalidKey("JWK \"\(name)\" is a \(v.typeName), not a string") }
            switch Base64URL.decode(s.utf8) {
            case .success(let b): return b
            case .failure(let problem): throw TokenError.invalidKey("JWK \"\(name)\" is not valid base64url: it \(problem.message)")
            }
        }
        let isPrivate = o["d"] != nil
        switch kty {
        case "oct":
            let k = try bytes("k")!
            guard !k.isEmpty else { throw TokenError.invalidKey("oct JWK has an empty \"k\"") }
            self = try JWK(hmacSecret: k)
        case "RSA":
            if o["oth"] != nil { throw TokenError.invalidKey("RSA JWK with \"oth\" (multi-prime) is not supported") }
            var members: [(String, [UInt8])] = [("n", try bytes("n")!), ("e", try bytes("e")!)]
            if isPrivate {
                members.append(("d", try bytes("d")!))
                let crt = [("p", "rsa-factor1"), ("q", "rsa-factor2"), ("dp", "rsa-exponent1"), ("dq", "rsa-exponent2"), ("qi", "rsa-coefficient1")]
                let present = crt.filter { o[$0.0] != nil }
                if !present.isEmpty {
                    guard present.count == crt.count else { throw TokenError.invalidKey("RSA JWK has some but not all of p, q, dp, dq, qi") }
                    for (jwkName, sslName) in crt { members.append((sslName, try bytes(jwkName)!)) }
                }
            }
            let evp = try EVPBuilder.build(type: "RSA", private: isPrivate) { b in
                for (name, value) in members { try b.bignum(name, value) }
            }
            self = try JWK(evp: evp, isPrivate: isPrivate)
        case "EC":
            let curve = try JWK.curve(o, kty: kty)
            guard curve != .ed25519 else { throw TokenError.invalidKey("EC JWK cannot use curve Ed25519 (that is kty OKP)") }
            let x = try bytes("x")!, y = try bytes("y")!
            let size = curve.coordinateSize
            guard x.count == size, y.count == size else {
                throw TokenError.invalidKey("\(curve.rawValue) JWK coordinates must be \(size) bytes each; got x \(x.count), y \(y.count) (RFC 7518 §6.2.1.2)")
            }
            let d = isPrivate ? try bytes("d")! : nil
            if let d, d.count != size { throw TokenError.invalidKey("\(curve.rawValue) JWK \"d\" must be \(size) bytes; got \(d.count)") }
            let evp = try EVPBuilder.build(type: "EC", private: isPrivate) { b in
                b.utf8(OSSL_PKEY_PARAM_GROUP_NAME, curve.openSSLGroupName)
                b.octets(OSSL_PKEY_PARAM_PUB_KEY, [0x04] + x + y)
                if let d { try b.bignum(OSSL_PKEY_PARAM_PRIV_KEY, d) }
            }
            self = try JWK(evp: evp, isPrivate: isPrivate)
        case "OKP":
            let curve = try JWK.curve(o, kty: kty)
            guard curve == .ed25519 else { throw TokenError.invalidKey("OKP JWK curve \(curve.rawValue) is not supported; only Ed25519 signs") }
            let x = try bytes("x")!
            guard x.count == 32 else { throw TokenError.invalidKey("Ed25519 JWK \"x\" must be 32 bytes; got \(x.count)") }
            ERR_clear_error()
            if isPrivate {
                let d = try bytes("d")!
                guard d.count == 32 else { throw TokenError.invalidKey("Ed25519 JWK \"d\" must be 32 bytes; got \(d.count)") }
                guard let pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, d, 32) else { throw OpenSSLError.fail(.invalidKey, "invalid Ed25519 private key") }
                let evp = EVPKey(takingOwnershipOf: pkey)
                var pub = [UInt8](repeating: 0, count: 32)
                var len = 32
                guard EVP_PKEY_get_raw_public_key(pkey, &pub, &len) == 1, ConstantTime.equals(pub, x) else {
                    throw TokenError.invalidKey("Ed25519 JWK \"x\" does not match its private key")
                }
                self = try JWK(evp: evp, isPrivate: true)
            } else {
                guard let pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, x, 32) else { throw OpenSSLError.fail(.invalidKey, "invalid Ed25519 public key") }
                self = try JWK(evp: EVPKey(takingOwnershipOf: pkey), isPrivate: false)
            }
        default:
            throw TokenError.invalidKey("JWK kty \"\(kty.prefix(16))\" is not supported; expected RSA, EC, OKP or oct")
        }
        func string(_ name: String) throws -> String? {
            guard let v = o[name] else { return nil }
            guard let s = v.stringValue else { throw TokenError.invalidKey("JWK \"\(name)\" is a \(v.typeName), not a string") }
            return s
        }
        keyID = try string("kid")
        use = try string("use")
        algorithm = try string("alg")
        if let ops = o["key_ops"] {
            guard let list = ops.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw TokenError.invalidKey("JWK \"key_ops\" must be an array of strings")
            }
            keyOperations = list.compactMap(\.stringValue)
        }
        let known: Set<String> = ["kty", "kid", "use", "alg", "key_ops", "crv", "x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi", "k", "oth"]
        extraMembers = JSONObject(o.members.filter { !known.contains($0.key) })
    }

    private static func curve(_ o: JSONObject, kty: String) throws -> Curve {
        guard let v = o["crv"] else { throw TokenError.invalidKey("\(kty) JWK has no \"crv\"") }
        guard let name = v.stringValue, let curve = Curve(rawValue: name) else {
            throw TokenError.invalidKey("JWK curve \(v.stringValue.map { "\"\($0.prefix(16))\"" } ?? v.typeName) is not supported; expected P-256, P-384, P-521 or Ed25519")
        }
        return curve
    }

    static func parseJSON(_ bytes: [UInt8], what: String, limits: JSONLimits = JSONLimits(maxBytes: 64 * 1024, maxDepth: 8, maxTopLevelMembers: 64)) throws -> JSONDocument {
        do { return try JSONDocument(parsing: bytes, limits: limits, what: what) }
        catch let e as TokenError { throw TokenError.invalidKey(e.message) }
    }

    /// A symmetric key for HS256/384/512 from raw secret bytes.
    /// - Throws: `invalid_key` when the secret is shorter than 32 bytes (RFC 7518 §3.2).
    public init(hmacSecret secret: [UInt8]) throws {
        guard secret.count >= 32 else {
            throw TokenError.invalidKey("HMAC secret is \(secret.count) bytes; at least 32 are required (RFC 7518 §3.2)")
        }
        guard secret.count <= 4096 else { throw TokenError.invalidKey("HMAC secret is \(secret.count) bytes; the limit is 4096") }
        self.init(keyType: .oct, curve: nil, isPrivate: true, bits: secret.count * 8, material: .secret(try HMACKey(secret: secret)))
    }

    /// The JWK as a JSON object. Private members (and an oct key's `k`) only with `includePrivate`.
    public func jsonObject(includePrivate: Bool = false) throws -> JSONObject {
        var o = JSONObject()
        o["kty"] = .string(keyType.rawValue)
        if let keyID { o["kid"] = .string(keyID) }
        if let use { o["use"] = .string(use) }
        if let algorithm { o["alg"] = .string(algorithm) }
        if let keyOperations { o["key_ops"] = .array(keyOperations.map { .string($0) }) }
        for (name, value) in try keyMembers(includePrivate: includePrivate) { o[name] = .string(Base64URL.encode(value)) }
        if let curve { o["crv"] = .string(curve.rawValue) }
        for m in extraMembers { o[m.key] = m.value }
        // Members in a stable, readable order: kty, kid, use, alg, key_ops, crv, then key material.
        var ordered = JSONObject()
        for name in ["kty", "kid", "use", "alg", "key_ops", "crv"] where o[name] != nil { ordered[name] = o[name] }
        for m in o where ordered[m.key] == nil { ordered[m.key] = m.value }
        return ordered
    }

    /// The JWK as compact JSON text.
    public func jsonString(includePrivate: Bool = false) throws -> String {
        JSONValue.object(try jsonObject(includePrivate: includePrivate)).jsonString
    }

    /// Key members in RFC 7518 §6 order, as raw bytes.
    func keyMembers(includePrivate: Bool) throws -> [(String, [UInt8])] {
        switch material {
        case .secret(let s):
            guard includePrivate else { throw TokenError.invalidKey("an HMAC secret has no public form; export it with its secret") }
            return [("k", s.secret)]
        case .evp(let evp):
            switch keyType {
            case .rsa:
                var out = [("n", evp.bignum(OSSL_PKEY_PARAM_RSA_N) ?? []), ("e", evp.bignum(OSSL_PKEY_PARAM_RSA_E) ?? [])]
                if includePrivate && isPrivate {
                    for (jwk, ssl) in [("d", "d"), ("p", "rsa-factor1"), ("q", "rsa-factor2"), ("dp", "rsa-exponent1"), ("dq", "rsa-exponent2"), ("qi", "rsa-coefficient1")] {
                        if let v = evp.bignum(ssl) { out.append((jwk, v)) }
                    }
                }
                return out
            case .ec:
                let size = curve!.coordinateSize
                func padded(_ b: [UInt8]?) -> [UInt8] { let b = b ?? []; return [UInt8](repeating: 0, count: max(0, size - b.count)) + b }
                var out = [("x", padded(evp.bignum(OSSL_PKEY_PARAM_EC_PUB_X))), ("y", padded(evp.bignum(OSSL_PKEY_PARAM_EC_PUB_Y)))]
                if includePrivate && isPrivate { out.append(("d", padded(evp.bignum(OSSL_PKEY_PARAM_PRIV_KEY)))) }
                return out
            case .okp:
                var pub = [UInt8](repeating: 0, count: 32)
                var len = 32
                guard EVP_PKEY_get_raw_public_key(evp.pointer, &pub, &len) == 1 else { throw OpenSSLError.fail(.internalError, "cannot read the Ed25519 key") }
                var out = [("x", pub)]
                if includePrivate && isPrivate {
                    var priv = [UInt8](repeating: 0, count: 32)
                    var plen = 32
                    guard EVP_PKEY_get_raw_private_key(evp.pointer, &priv, &plen) == 1 else { throw OpenSSLError.fail(.internalError, "cannot read the Ed25519 key") }
                    out.append(("d", priv))
                }
                return out
            case .oct:
                return []
            }
        }
    }

    /// The RFC 7638 JWK thumbprint (SHA-256 over the required members in lexicographic order), base64url.
    public func thumbprint() throws -> String {
        var o = JSONObject()
        switch keyType {
        case .rsa:
            let m = try keyMembers(includePrivate: false)
            o["e"] = .string(Base64URL.encode(m[1].1)); o["kty"] = "RSA"; o["n"] = .string(Base64URL.encode(m[0].1))
        case .ec:
            let m = try keyMembers(includePrivate: false)
            o["crv"] = .string(curve!.rawValue); o["kty"] = "EC"
            o["x"] = .string(Base64URL.encode(m[0].1)); o["y"] = .string(Base64URL.encode(m[1].1))
        case .okp:
            let m = try keyMembers(includePrivate: false)
            o["crv"] = .string(curve!.rawValue); o["kty"] = "OKP"; o["x"] = .string(Base64URL.encode(m[0].1))
        case .oct:
            let m = try keyMembers(includePrivate: true)
            o["k"] = .string(Base64URL.encode(m[0].1)); o["kty"] = "oct"
        }
        return Base64URL.encode(SHA2.sha256(JSONValue.object(o).jsonBytes))
    }
}

/// Builds an EVP_PKEY from OSSL_PARAMs (EVP_PKEY_fromdata). Every BIGNUM it makes is freed
/// (cleared first) when the builder is done; octet buffers are copied by OSSL_PARAM_BLD_to_param.
/// Parameter names are NOT copied: OSSL_PARAM_BLD keeps the `key` pointer and the array from
/// OSSL_PARAM_BLD_to_param points at it, so each name is a C copy owned by the builder, and the
/// builder lives until EVP_PKEY_fromdata is done (a Swift String argument would be a temporary).
final class EVPBuilder {
    private let bld: OpaquePointer
    private var bignums: [OpaquePointer] = []
    private var buffers: [UnsafeMutableRawBufferPointer] = []
    private var strings: [UnsafeMutablePointer<CChar>] = []

    private init() throws {
        guard let b = OSSL_PARAM_BLD_new() else { throw OpenSSLError.fail(.internalError, "OSSL_PARAM_BLD_new") }
        bld = b
    }
    deinit {
        OSSL_PARAM_BLD_free(bld)
        for bn in bignums { BN_clear_free(bn) }
        for b in buffers { b.initializeMemory(as: UInt8.self, repeating: 0); b.deallocate() }
        for s in strings { free(s) }
    }

    /// A C copy of `s` that lives as long as the builder. OSSL_PARAM_BLD (and the OSSL_PARAM array
    /// it makes) keeps the *pointer* to each parameter name, not a copy: a Swift String bridged
    /// for one call would dangle.
    private func cString(_ s: String) -> UnsafeMutablePointer<CChar> {
        let c = strdup(s)!
        strings.append(c)
        return c
    }

    func bignum(_ name: String, _ bytes: [UInt8]) throws {
        guard let bn = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw OpenSSLError.fail(.internalError, "BN_bin2bn") }
        bignums.append(bn)
        guard OSSL_PARAM_BLD_push_BN(bld, cString(name), bn) == 1 else { throw OpenSSLError.fail(.internalError, "OSSL_PARAM_BLD_push_BN") }
    }

    func octets(_ name: String, _ bytes: [UInt8]) {
        let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        buf.copyBytes(from: bytes)
        buffers.append(buf)
        OSSL_PARAM_BLD_push_octet_string(bld, cString(name), buf.baseAddress, bytes.count)
    }

    func utf8(_ name: String, _ value: String) {
        OSSL_PARAM_BLD_push_utf8_string(bld, cString(name), cString(value), 0)
    }

    static func build(type: String, private isPrivate: Bool, _ fill: (EVPBuilder) throws -> Void) throws -> EVPKey {
        ERR_clear_error()
        let b = try EVPBuilder()
        try fill(b)
        // The params point at names the builder owns: keep it alive until fromdata is done.
        return try withExtendedLifetime(b) { try fromData(b, type: type, private: isPrivate) }
    }

    private static func fromData(_ b: EVPBuilder, type: String, private isPrivate: Bool) throws -> EVPKey {
        guard let params = OSSL_PARAM_BLD_to_param(b.bld) else { throw OpenSSLError.fail(.internalError, "OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, type, nil) else { throw OpenSSLError.fail(.internalError, "EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        var pkey: OpaquePointer? = nil
        let selection = isPrivate ? ctk_selection_keypair() : ctk_selection_public_key()
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &pkey, selection, params) == 1, let pkey else {
            throw OpenSSLError.fail(.invalidKey, "\(type) JWK is not a valid key")
        }
        return EVPKey(takingOwnershipOf: pkey)
    }
}
