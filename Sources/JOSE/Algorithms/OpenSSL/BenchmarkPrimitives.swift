internal import COpenSSL

/// FOR BENCHMARKING ONLY (`tokentool bench`): the bare OpenSSL primitive under a JWS algorithm,
/// with everything that can be prepared once prepared once, so that a benchmark can report
/// what a token operation costs beyond the cryptography itself. Not part of the supported
/// API: it is behind `@_spi(Benchmark)`, checks nothing a verifier checks, and may change.
///
/// Per call it does only what the primitive needs, mirroring a hand-written C loop:
/// HMAC: `EVP_MAC_init` on a keyed context + update + final + `CRYPTO_memcmp`;
/// RSA and ECDSA: digest (fetched once) + `EVP_PKEY_verify`/`_sign` on a context
/// initialised once (ECDSA signature converted to DER once, sign output left in DER);
/// Ed25519: `EVP_DigestVerifyInit_ex`/`EVP_DigestSignInit_ex` + one-shot, as OpenSSL requires.
///
/// An instance holds mutable OpenSSL contexts: use one per thread.
@_spi(Benchmark)
public final class RawPrimitive {
    private enum Kind { case hmac, pkey, eddsa }
    private let kind: Kind
    private let algorithm: JWSAlgorithm
    private let input: [UInt8]
    private let signatureBytes: [UInt8]
    private var out = [UInt8](repeating: 0, count: 1024)
    private var md: OpaquePointer? = nil
    private var mdctx: OpaquePointer? = nil
    private var smdctx: OpaquePointer? = nil
    private var mac: OpaquePointer? = nil
    private var vctx: OpaquePointer? = nil
    private var sctx: OpaquePointer? = nil
    private var publicKey: EVPKey? = nil
    private var privateKey: EVPKey? = nil
    private var hmacKey: HMACKey? = nil

    /// Prepares the primitive for `algorithm` over `signingInput` (the token's
    /// `header.payload` bytes) and its JWS `signature`.
    /// - Parameters:
    ///   - key: the private key or secret (its public half verifies).
    /// - Throws: `algorithm_not_allowed` if the key cannot do `algorithm`, `internal_error` on OpenSSL failure.
    public init(key: JWK, algorithm: JWSAlgorithm, signingInput: [UInt8], signature: [UInt8]) throws {
        self.algorithm = algorithm
        self.input = signingInput
        try key.check(algorithm, for: .sign)
        switch key.material {
        case .secret(let secret):
            kind = .hmac
            signatureBytes = signature
            hmacKey = secret
            guard let ctx = EVP_MAC_CTX_new(FetchedMAC.hmac.pointer) else { throw OpenSSLError.fail(.internalError, "EVP_MAC_CTX_new") }
            mac = ctx
            let ok = algorithm.digestName.withCString { name in
                "digest".withCString { k in
                    var params = [OSSL_PARAM_construct_utf8_string(k, UnsafeMutablePointer(mutating: name), 0), OSSL_PARAM_construct_end()]
                    return secret.secret.withUnsafeBufferPointer { s in
                        params.withUnsafeMutableBufferPointer { EVP_MAC_init(ctx, s.baseAddress, s.count, $0.baseAddress) == 1 }
                    }
                }
            }
            guard ok else { throw OpenSSLError.fail(.internalError, "HMAC init") }
        case .evp(let evp):
            guard case .evp(let pub) = key.publicKey.material else { throw TokenError(.internalError, "no public key") }
            publicKey = pub
            privateKey = evp
            mdctx = EVP_MD_CTX_new()
            smdctx = EVP_MD_CTX_new()
            if algorithm.scheme == .eddsa {
                kind = .eddsa
                signatureBytes = signature
                return
            }
            kind = .pkey
            md = algorithm.digest!.pointer
            if algorithm.scheme == .ecdsa {
                signatureBytes = try signature.withUnsafeBytes {
                    try ECDSASignature.der(fromRaw: $0, coordinateSize: algorithm.curve!.coordinateSize)
                }
            } else {
                signatureBytes = signature
            }
            vctx = EVP_PKEY_CTX_new(pub.pointer, nil)
            sctx = EVP_PKEY_CTX_new(evp.pointer, nil)
            guard let vctx, let sctx, EVP_PKEY_verify_init(vctx) == 1, EVP_PKEY_sign_init(sctx) == 1 else {
                throw OpenSSLError.fail(.internalError, "EVP_PKEY init")
            }
            for c in [vctx, sctx] {
                switch algorithm.scheme {
                case .rsaPKCS1:
                    guard EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PADDING) == 1 else { throw OpenSSLError.fail(.internalError, "padding") }
                case .rsaPSS:
                    guard EVP_PKEY_CTX_set_rsa_padding(c, RSA_PKCS1_PSS_PADDING) == 1,
                        EVP_PKEY_CTX_set_rsa_pss_saltlen(c, RSA_PSS_SALTLEN_DIGEST) == 1,
                        EVP_PKEY_CTX_set_rsa_mgf1_md(c, md) == 1
                    else { throw OpenSSLError.fail(.internalError, "pss") }
                default: break
                }
                guard EVP_PKEY_CTX_set_signature_md(c, md) == 1 else { throw OpenSSLError.fail(.internalError, "signature md") }
            }
        }
    }

    deinit {
        if let mac { EVP_MAC_CTX_free(mac) }
        if let vctx { EVP_PKEY_CTX_free(vctx) }
        if let sctx { EVP_PKEY_CTX_free(sctx) }
        if let mdctx { EVP_MD_CTX_free(mdctx) }
        if let smdctx { EVP_MD_CTX_free(smdctx) }
    }

    private func digest(_ d: UnsafeMutablePointer<UInt8>, _ length: inout UInt32) -> Bool {
        input.withUnsafeBufferPointer { i in
            EVP_DigestInit_ex2(mdctx, md, nil) == 1 && EVP_DigestUpdate(mdctx, i.baseAddress, i.count) == 1
                && EVP_DigestFinal_ex(mdctx, d, &length) == 1
        }
    }

    /// One bare verification of the prepared signature; `true` when it verifies.
    public func verify() -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf -> Bool in
            let d = buf.baseAddress!
            switch kind {
            case .hmac:
                var n = 0
                let ok = input.withUnsafeBufferPointer { i in
                    EVP_MAC_init(mac, nil, 0, nil) == 1 && EVP_MAC_update(mac, i.baseAddress, i.count) == 1 && EVP_MAC_final(mac, d, &n, 64) == 1
                }
                return ok && n == signatureBytes.count && signatureBytes.withUnsafeBufferPointer { CRYPTO_memcmp(d, $0.baseAddress, n) == 0 }
            case .pkey:
                var n: UInt32 = 0
                guard digest(d, &n) else { return false }
                return signatureBytes.withUnsafeBufferPointer { EVP_PKEY_verify(vctx, $0.baseAddress, $0.count, d, Int(n)) == 1 }
            case .eddsa:
                guard EVP_DigestVerifyInit_ex(mdctx, nil, nil, nil, nil, publicKey!.pointer, nil) == 1 else { return false }
                return signatureBytes.withUnsafeBufferPointer { s in
                    input.withUnsafeBufferPointer { i in EVP_DigestVerify(mdctx, s.baseAddress, s.count, i.baseAddress, i.count) == 1 }
                }
            }
        }
    }

    /// One bare signature over the prepared input (discarded); `true` on success.
    public func sign() -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf -> Bool in
            let d = buf.baseAddress!
            var outLength = 1024
            switch kind {
            case .hmac:
                return input.withUnsafeBufferPointer { i in
                    out.withUnsafeMutableBufferPointer { o in
                        EVP_MAC_init(mac, nil, 0, nil) == 1 && EVP_MAC_update(mac, i.baseAddress, i.count) == 1
                            && EVP_MAC_final(mac, o.baseAddress, &outLength, o.count) == 1
                    }
                }
            case .pkey:
                var n: UInt32 = 0
                guard digest(d, &n) else { return false }
                return out.withUnsafeMutableBufferPointer { EVP_PKEY_sign(sctx, $0.baseAddress, &outLength, d, Int(n)) == 1 }
            case .eddsa:
                guard EVP_DigestSignInit_ex(smdctx, nil, nil, nil, nil, privateKey!.pointer, nil) == 1 else { return false }
                return input.withUnsafeBufferPointer { i in
                    out.withUnsafeMutableBufferPointer { EVP_DigestSign(smdctx, $0.baseAddress, &outLength, i.baseAddress, i.count) == 1 }
                }
            }
        }
    }
}
