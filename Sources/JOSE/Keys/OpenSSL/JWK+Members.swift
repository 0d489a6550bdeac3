internal import COpenSSL

// JWK members ↔ OpenSSL keys: the OpenSSL half of JWK/JWK+JSON.swift.
extension JWK {
    /// An RSA key from its JWK members, named as OpenSSL names them (`n`, `e`, `d`,
    /// `rsa-factor1`, …), as raw big-endian bytes.
    init(rsaMembers members: [(String, [UInt8])], isPrivate: Bool) throws {
        let evp = try EVPBuilder.build(type: "RSA", private: isPrivate) { b in
            for (name, value) in members { try b.bignum(name, value) }
        }
        try self.init(evp: evp, isPrivate: isPrivate)
    }

    /// A P-256/384/521 key from its coordinates (and private scalar), each exactly the curve's size.
    init(curve: Curve, x: [UInt8], y: [UInt8], d: [UInt8]?) throws {
        let evp = try EVPBuilder.build(type: "EC", private: d != nil) { b in
            b.utf8(OSSL_PKEY_PARAM_GROUP_NAME, curve.openSSLGroupName)
            b.octets(OSSL_PKEY_PARAM_PUB_KEY, [0x04] + x + y)
            if let d { try b.bignum(OSSL_PKEY_PARAM_PRIV_KEY, d) }
        }
        try self.init(evp: evp, isPrivate: d != nil)
    }

    /// An Ed25519 key from its 32-byte public key (and 32-byte private key, which must match it).
    init(ed25519X x: [UInt8], d: [UInt8]?) throws {
        ERR_clear_error()
        if let d {
            guard let pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, d, 32) else {
                throw OpenSSLError.fail(.invalidKey, "invalid Ed25519 private key")
            }
            let evp = EVPKey(takingOwnershipOf: pkey)
            var pub = [UInt8](repeating: 0, count: 32)
            var len = 32
            guard EVP_PKEY_get_raw_public_key(pkey, &pub, &len) == 1, ConstantTime.equals(pub, x) else {
                throw TokenError.invalidKey("Ed25519 JWK \"x\" does not match its private key")
            }
            try self.init(evp: evp, isPrivate: true)
        } else {
            guard let pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, x, 32) else {
                throw OpenSSLError.fail(.invalidKey, "invalid Ed25519 public key")
            }
            try self.init(evp: EVPKey(takingOwnershipOf: pkey), isPrivate: false)
        }
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
                    for (jwk, ssl) in [
                        ("d", "d"), ("p", "rsa-factor1"), ("q", "rsa-factor2"), ("dp", "rsa-exponent1"), ("dq", "rsa-exponent2"),
                        ("qi", "rsa-coefficient1"),
                    ] {
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
                guard EVP_PKEY_get_raw_public_key(evp.pointer, &pub, &len) == 1 else {
                    throw OpenSSLError.fail(.internalError, "cannot read the Ed25519 key")
                }
                var out = [("x", pub)]
                if includePrivate && isPrivate {
                    var priv = [UInt8](repeating: 0, count: 32)
                    var plen = 32
                    guard EVP_PKEY_get_raw_private_key(evp.pointer, &priv, &plen) == 1 else {
                        throw OpenSSLError.fail(.internalError, "cannot read the Ed25519 key")
                    }
                    out.append(("d", priv))
                }
                return out
            case .oct:
                return []
            }
        }
    }
}
