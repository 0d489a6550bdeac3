internal import COpenSSL

extension KeyMaterial {
    /// Verifies `signature` over `data`. Returns false for a signature that does not verify;
    /// throws only for a signature of impossible shape or an OpenSSL failure.
    func verify(_ alg: JWSAlgorithm, signature: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) throws -> Bool {
        switch self {
        case .secret(let key):
            guard signature.count == alg.hashLength else {
                throw TokenError(.invalidSignature, "\(alg.rawValue) MAC is \(signature.count) bytes; expected \(alg.hashLength)")
            }
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf in
                let n = try key.mac(alg, data, into: buf.baseAddress!)
                // Constant time: the comparison does not stop at the first differing byte.
                return n == signature.count && ConstantTime.equals(UnsafeRawBufferPointer(start: buf.baseAddress, count: n), signature)
            }
        case .evp(let key):
            switch alg.scheme {
            case .ecdsa:
                // RFC 7518 §3.4: the JWS signature is r ‖ s, each exactly the coordinate size; never DER.
                let size = alg.curve!.coordinateSize
                guard signature.count == 2 * size else {
                    throw TokenError(.invalidSignature, "\(alg.rawValue) signature is \(signature.count) bytes; expected \(2 * size) (r ‖ s)")
                }
                let der = try ECDSASignature.der(fromRaw: signature, coordinateSize: size)
                return try der.withUnsafeBytes { try digestVerify(key, alg, signature: $0, data: data) }
            case .eddsa:
                guard signature.count == 64 else {
                    throw TokenError(.invalidSignature, "EdDSA signature is \(signature.count) bytes; expected 64")
                }
                return try digestVerify(key, alg, signature: signature, data: data)
            case .rsaPKCS1, .rsaPSS:
                return try digestVerify(key, alg, signature: signature, data: data)
            case .hmac:
                throw TokenError(.algorithmNotAllowed, "\(alg.rawValue) needs a secret, not an asymmetric key")
            }
        }
    }

    /// Verifies an ECDSA signature given as a DER ECDSA-Sig-Value (X9.62; how WebAuthn §6.5.6 and
    /// X.509 carry it) rather than JWS's r ‖ s; other schemes as ``verify(_:signature:data:)``.
    /// OpenSSL re-encodes what it reads and refuses a signature that is not that exact DER (BER
    /// forms, trailing bytes).
    func verifyDER(_ alg: JWSAlgorithm, signature: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) throws -> Bool {
        guard alg.scheme == .ecdsa, case .evp(let key) = self else { return try verify(alg, signature: signature, data: data) }
        // SEQUENCE { INTEGER r, INTEGER s }: two coordinates, each with a sign byte, plus headers.
        guard signature.count <= 2 * alg.curve!.coordinateSize + 16 else {
            throw TokenError(.invalidSignature, "\(alg.rawValue) DER signature is \(signature.count) bytes; too long")
        }
        return try digestVerify(key, alg, signature: signature, data: data)
    }

    /// Signs `data`; ECDSA signatures come back as JWS r ‖ s.
    func sign(_ alg: JWSAlgorithm, data: UnsafeRawBufferPointer) throws -> [UInt8] {
        switch self {
        case .secret(let key):
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf in
                let n = try key.mac(alg, data, into: buf.baseAddress!)
                return Array(UnsafeBufferPointer(start: buf.baseAddress, count: n))
            }
        case .evp(let key):
            let raw = try digestSign(key, alg, data: data)
            if alg.scheme == .ecdsa {
                return try ECDSASignature.raw(fromDER: raw, coordinateSize: alg.curve!.coordinateSize)
            }
            return raw
        }
    }

    private func initialise(_ ctx: OpaquePointer, _ key: EVPKey, _ alg: JWSAlgorithm, sign: Bool) throws {
        var pctx: OpaquePointer? = nil
        let md = alg.digest?.pointer
        let rc = sign ? EVP_DigestSignInit(ctx, &pctx, md, nil, key.pointer) : EVP_DigestVerifyInit(ctx, &pctx, md, nil, key.pointer)
        guard rc == 1 else { throw OpenSSLError.fail(.algorithmNotAllowed, "the key cannot be used with \(alg.rawValue)") }
        if alg.scheme == .rsaPSS {
            // RFC 7518 §3.5: MGF1 with the same hash, salt length equal to the hash length.
            guard EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1
            else { throw OpenSSLError.fail(.internalError, "cannot set RSA-PSS parameters") }
        }
    }

    /// A digest context ready for one sign or verify with `key` and `alg`; the caller frees it.
    /// RSA and ECDSA copy a template initialised once per key and algorithm
    /// (`EVP_DigestVerifyInit` fetches the signature and key-management implementations and
    /// builds a provider context on every call: ~27k instructions for RS256, callgrind); Ed25519
    /// contexts cannot be copied in OpenSSL 3.0, so they are initialised per call.
    private func context(_ key: EVPKey, _ alg: JWSAlgorithm, sign: Bool) throws -> OpaquePointer {
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSLError.fail(.internalError, "cannot create a digest context") }
        if alg.scheme == .eddsa {
            do { try initialise(ctx, key, alg, sign: sign) } catch { EVP_MD_CTX_free(ctx); throw error }
            return ctx
        }
        do {
            let template = try key.templates.get(alg.templateIndex * 2 + (sign ? 1 : 0)) {
                guard let t = EVP_MD_CTX_new() else { throw OpenSSLError.fail(.internalError, "cannot create a digest context") }
                do { try initialise(t, key, alg, sign: sign) } catch { EVP_MD_CTX_free(t); throw error }
                return t
            }
            guard EVP_MD_CTX_copy_ex(ctx, template) == 1 else { throw OpenSSLError.fail(.internalError, "cannot copy a digest context") }
        } catch {
            EVP_MD_CTX_free(ctx)
            throw error
        }
        return ctx
    }

    private func digestVerify(_ key: EVPKey, _ alg: JWSAlgorithm, signature: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) throws -> Bool {
        ERR_clear_error()
        let ctx = try context(key, alg, sign: false)
        defer { EVP_MD_CTX_free(ctx) }
        let rc = EVP_DigestVerify(
            ctx, signature.baseAddress?.assumingMemoryBound(to: UInt8.self), signature.count,
            data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count)
        ERR_clear_error()  // a failed verification leaves reasons we do not report
        return rc == 1
    }

    private func digestSign(_ key: EVPKey, _ alg: JWSAlgorithm, data: UnsafeRawBufferPointer) throws -> [UInt8] {
        ERR_clear_error()
        let ctx = try context(key, alg, sign: true)
        defer { EVP_MD_CTX_free(ctx) }
        let tbs = data.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var length = 0
        guard EVP_DigestSign(ctx, nil, &length, tbs, data.count) == 1 else {
            throw OpenSSLError.fail(.internalError, "\(alg.rawValue) signing failed")
        }
        var out = [UInt8](repeating: 0, count: length)
        guard out.withUnsafeMutableBufferPointer({ EVP_DigestSign(ctx, $0.baseAddress, &length, tbs, data.count) }) == 1 else {
            throw OpenSSLError.fail(.internalError, "\(alg.rawValue) signing failed")
        }
        out.removeSubrange(length...)
        return out
    }
}

extension JWSAlgorithm {
    /// Position in `allCases`, without searching it.
    var templateIndex: Int {
        switch self {
        case .hs256: 0;
        case .hs384: 1;
        case .hs512: 2;
        case .rs256: 3;
        case .rs384: 4;
        case .rs512: 5
        case .ps256: 6;
        case .ps384: 7;
        case .ps512: 8;
        case .es256: 9;
        case .es384: 10;
        case .es512: 11;
        case .edDSA: 12;
        case .ed25519: 13
        }
    }
}

/// Conversions between JWS's raw r ‖ s and OpenSSL's DER ECDSA-Sig-Value.
enum ECDSASignature {
    static func der(fromRaw raw: UnsafeRawBufferPointer, coordinateSize size: Int) throws -> [UInt8] {
        guard let sig = ECDSA_SIG_new() else { throw OpenSSLError.fail(.internalError, "cannot allocate ECDSA_SIG") }
        defer { ECDSA_SIG_free(sig) }
        let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard let r = BN_bin2bn(base, Int32(size), nil) else { throw OpenSSLError.fail(.internalError, "BN_bin2bn") }
        guard let s = BN_bin2bn(base + size, Int32(size), nil) else { BN_free(r); throw OpenSSLError.fail(.internalError, "BN_bin2bn") }
        // set0 takes ownership of r and s on success only.
        guard ECDSA_SIG_set0(sig, r, s) == 1 else { BN_free(r); BN_free(s); throw OpenSSLError.fail(.internalError, "ECDSA_SIG_set0") }
        var der: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_ECDSA_SIG(sig, &der)
        guard n > 0, let der else { throw OpenSSLError.fail(.internalError, "i2d_ECDSA_SIG") }
        defer { ctk_openssl_free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(n)))
    }

    static func raw(fromDER der: [UInt8], coordinateSize size: Int) throws -> [UInt8] {
        try der.withUnsafeBufferPointer { buf in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &p, buf.count) else { throw OpenSSLError.fail(.internalError, "d2i_ECDSA_SIG") }
            defer { ECDSA_SIG_free(sig) }
            var r: OpaquePointer? = nil
            var s: OpaquePointer? = nil
            ECDSA_SIG_get0(sig, &r, &s)  // get0: borrowed, freed with sig
            return bignumBytes(r!, width: size) + bignumBytes(s!, width: size)
        }
    }
}
