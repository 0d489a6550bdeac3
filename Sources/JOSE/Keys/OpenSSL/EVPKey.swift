internal import COpenSSL

/// Owns one EVP_PKEY. Immutable after init; concurrent sign/verify on one key is fine
/// (openssl-threads(7)). `EVP_PKEY_free` runs exactly once, in `deinit`.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Digest-sign/verify contexts initialised once per algorithm and operation, copied per
    /// call (see `KeyMaterial.verify`).
    let templates = ContextTemplates()
    init(takingOwnershipOf pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }
}

extension EVPKey {
    /// A BIGNUM parameter of the key (`OSSL_PKEY_PARAM_*` name) as big-endian bytes; `nil` when absent.
    func bignum(_ name: String) -> [UInt8]? {
        var bn: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &bn) == 1, let bn else { ERR_clear_error(); return nil }
        defer { BN_clear_free(bn) }
        return bignumBytes(bn)
    }

    /// A new key holding only the public half (SPKI round trip).
    func publicOnly() -> EVPKey {
        var der: UnsafeMutablePointer<UInt8>? = nil
        let n = i2d_PUBKEY(pointer, &der)
        guard n > 0, let der else { return self }
        defer { ctk_openssl_free(der) }
        var p: UnsafePointer<UInt8>? = UnsafePointer(der)
        guard let pub = d2i_PUBKEY(nil, &p, Int(n)) else { ERR_clear_error(); return self }
        return EVPKey(takingOwnershipOf: pub)
    }
}
