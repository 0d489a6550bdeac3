#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif

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
            self = try JWK(rsaMembers: members, isPrivate: isPrivate)
        case "EC":
            let curve = try JWK.curve(o, kty: kty)
            guard curve != .ed25519 else { throw TokenError.invalidKey("EC JWK cannot use curve Ed25519 (that is kty OKP)") }
            let x = try bytes("x")!, y = try bytes("y")!
            let size = curve.coordinateSize
            guard x.count == size, y.count == size else {
                throw TokenError.invalidKey(
                    "\(curve.rawValue) JWK coordinates must be \(size) bytes each; got x \(x.count), y \(y.count) (RFC 7518 §6.2.1.2)")
            }
            let d = isPrivate ? try bytes("d")! : nil
            if let d, d.count != size { throw TokenError.invalidKey("\(curve.rawValue) JWK \"d\" must be \(size) bytes; got \(d.count)") }
            self = try JWK(curve: curve, x: x, y: y, d: d)
        case "OKP":
            let curve = try JWK.curve(o, kty: kty)
            guard curve == .ed25519 else { throw TokenError.invalidKey("OKP JWK curve \(curve.rawValue) is not supported; only Ed25519 signs") }
            let x = try bytes("x")!
            guard x.count == 32 else { throw TokenError.invalidKey("Ed25519 JWK \"x\" must be 32 bytes; got \(x.count)") }
            let d = isPrivate ? try bytes("d")! : nil
            if let d, d.count != 32 { throw TokenError.invalidKey("Ed25519 JWK \"d\" must be 32 bytes; got \(d.count)") }
            self = try JWK(ed25519X: x, d: d)
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
            throw TokenError.invalidKey(
                "JWK curve \(v.stringValue.map { "\"\($0.prefix(16))\"" } ?? v.typeName) is not supported; expected P-256, P-384, P-521 or Ed25519")
        }
        return curve
    }

    static func parseJSON(_ bytes: [UInt8], what: String, limits: JSONLimits = JSONLimits(maxBytes: 64 * 1024, maxDepth: 8, maxTopLevelMembers: 64))
        throws -> JSONDocument
    {
        do { return try JSONDocument(parsing: bytes, limits: limits, what: what) } catch let e as TokenError {
            throw TokenError.invalidKey(e.message)
        }
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
}
