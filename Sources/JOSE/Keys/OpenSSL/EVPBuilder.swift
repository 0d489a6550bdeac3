internal import COpenSSL

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
