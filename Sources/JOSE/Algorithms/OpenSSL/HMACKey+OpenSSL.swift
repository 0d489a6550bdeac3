internal import COpenSSL

/// Owns a symmetric secret and one keyed `EVP_MAC_CTX` template per HMAC algorithm the
/// secret is long enough for. Each MAC duplicates its template, so the key schedule is
/// computed once per key, not once per token; templates are never mutated after init, so
/// concurrent use is safe. The secret is copied into memory this object alone owns, which is
/// cleansed and freed in `deinit` with the contexts. (Cleansing the caller's array instead
/// would zero the caller's secret through the shared copy-on-write buffer.)
final class HMACKey: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    private let count: Int
    /// Indexed by hs256, hs384, hs512.
    private var templates: [OpaquePointer?] = [nil, nil, nil]

    /// A copy of the secret bytes.
    var secret: [UInt8] { Array(storage.prefix(count)) }

    /// `allowShort` keys HS256 whatever the length (for one-shot HMACs outside JWS, such as
    /// Facebook's appsecret_proof); JWS keys go through ``JWK``'s length checks first.
    init(secret: [UInt8], allowShort: Bool = false) throws {
        storage = .allocate(byteCount: max(secret.count, 1), alignment: 1)
        storage.copyBytes(from: secret)
        count = secret.count
        for (i, alg) in [JWSAlgorithm.hs256, .hs384, .hs512].enumerated() where secret.count >= alg.hashLength || (allowShort && i == 0) {
            templates[i] = try Self.makeTemplate(secret, digestName: alg.digestName)
        }
    }

    deinit {
        for t in templates { if let t { EVP_MAC_CTX_free(t) } }
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    static func makeTemplate(_ secret: [UInt8], digestName: String) throws -> OpaquePointer {
        ERR_clear_error()
        guard let ctx = EVP_MAC_CTX_new(FetchedMAC.hmac.pointer) else { throw OpenSSLError.fail(.internalError, "cannot create an HMAC context") }
        let ok = digestName.withCString { name -> Bool in
            "digest".withCString { key -> Bool in
                var params = [
                    OSSL_PARAM_construct_utf8_string(key, UnsafeMutablePointer(mutating: name), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return secret.withUnsafeBufferPointer { s in
                    params.withUnsafeMutableBufferPointer { EVP_MAC_init(ctx, s.baseAddress, s.count, $0.baseAddress) == 1 }
                }
            }
        }
        guard ok else {
            EVP_MAC_CTX_free(ctx)
            throw OpenSSLError.fail(.internalError, "cannot key HMAC")
        }
        return ctx
    }

    /// Computes the full-length MAC over `data` into `out` (which must hold 64 bytes); returns its length.
    func mac(_ alg: JWSAlgorithm, _ data: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) throws -> Int {
        let index: Int
        switch alg {
        case .hs256: index = 0;
        case .hs384: index = 1;
        case .hs512: index = 2;
        default: index = -1
        }
        guard index >= 0, let template = templates[index] else {
            throw TokenError(.algorithmNotAllowed, "the secret is too short for \(alg.rawValue)")
        }
        return try Self.run(template, data, into: out)
    }

    /// One MAC over `data` with a copy of `template` (left unchanged); `out` must hold 64 bytes.
    static func run(_ template: OpaquePointer, _ data: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) throws -> Int {
        guard let ctx = EVP_MAC_CTX_dup(template) else { throw OpenSSLError.fail(.internalError, "cannot duplicate an HMAC context") }
        defer { EVP_MAC_CTX_free(ctx) }
        var outLength = 0
        guard EVP_MAC_update(ctx, data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count) == 1,
            EVP_MAC_final(ctx, out, &outLength, 64) == 1
        else { throw OpenSSLError.fail(.internalError, "HMAC failed") }
        return outLength
    }

    /// HMAC-SHA-1 (RFC 2104) of `data`: for HOTP and TOTP (RFC 4226 §5.2, RFC 6238 §1.2) only.
    /// SHA-1 is no JWS algorithm here: ``JWSAlgorithm`` has no case for it and never will.
    static func sha1(key: [UInt8], data: [UInt8]) throws -> [UInt8] {
        let template = try makeTemplate(key, digestName: "SHA1")
        defer { EVP_MAC_CTX_free(template) }
        return try data.withUnsafeBytes { d in
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf in
                let n = try run(template, d, into: buf.baseAddress!)
                return Array(UnsafeBufferPointer(start: buf.baseAddress, count: n))
            }
        }
    }
}

extension JWSAlgorithm {
    var digestName: String {
        switch hashLength {
        case 32: "SHA256";
        case 48: "SHA384";
        default: "SHA512"
        }
    }
}
