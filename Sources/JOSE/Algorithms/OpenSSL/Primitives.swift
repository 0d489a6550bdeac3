#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
internal import COpenSSL
import Synchronization

/// Constant-time comparison for MACs, hashes and other secrets (OpenSSL `CRYPTO_memcmp`).
public enum ConstantTime {
    /// `true` when both buffers have the same length and bytes; the time taken depends only on
    /// the length, never on where the first difference is.
    public static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        #if DEBUG
            ComparisonProbe.current?.record()
        #endif
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
    }

    /// Array form of ``equals(_:_:)-(UnsafeRawBufferPointer,_)``.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in equals(x, y) } }
    }
}

#if DEBUG
    /// Test hook, compiled into debug builds only: counts the calls to ``ConstantTime/equals(_:_:)``
    /// made while it is bound to the current task, so a test can prove that a code path (the HMAC
    /// verification) compares with `CRYPTO_memcmp` rather than with `==` or `memcmp`.
    /// A task-local keeps tests running in parallel from counting each other's calls.
    final class ComparisonProbe: Sendable {
        @TaskLocal static var current: ComparisonProbe?
        private let calls = Mutex(0)

        func record() { calls.withLock { $0 += 1 } }
        var count: Int { calls.withLock { $0 } }
    }
#endif

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`).
public enum SecureRandom {
    /// `count` random bytes.
    /// - Throws: `internal_error` if the generator fails (it is never silently weak).
    public static func bytes(_ count: Int) throws -> [UInt8] {
        _ = threadStatePrepared
        var out = [UInt8](repeating: 0, count: count)
        guard count == 0 || out.withUnsafeMutableBufferPointer({ RAND_bytes($0.baseAddress, Int32(count)) }) == 1 else {
            throw OpenSSLError.fail(.internalError, "RAND_bytes failed")
        }
        return out
    }

    /// COpenSSL's load-time constructor already ran it; referring to it here also keeps that
    /// object file in any link that uses JOSE's random bytes (a static library drops unreferenced
    /// objects, and with them their constructors).
    private static let threadStatePrepared: Void = ctk_openssl_prepare_thread_state()
}

/// SHA-2 digests.
public enum SHA2 {
    public static func sha256<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 { digest(data, .sha256) }
    public static func sha384<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 { digest(data, .sha384) }
    public static func sha512<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 { digest(data, .sha512) }

    private static func digest<C: Collection>(_ data: C, _ md: FetchedDigest) -> [UInt8] where C.Element == UInt8 {
        var out = [UInt8](repeating: 0, count: md.size)
        var length: UInt32 = 0
        let bytes = Array(data)
        let ok = bytes.withUnsafeBytes { d in
            out.withUnsafeMutableBufferPointer { EVP_Digest(d.baseAddress, d.count, $0.baseAddress, &length, md.pointer, nil) }
        }
        precondition(ok == 1, "EVP_Digest failed")
        return out
    }
}

/// One-shot HMAC (e.g. Facebook's `appsecret_proof`). For JWS use ``JWTSigner`` / ``JWTVerifier``.
public enum HMAC {
    public static func sha256(key: [UInt8], data: [UInt8]) throws -> [UInt8] {
        let k = try HMACKey(secret: key, allowShort: true)
        return try data.withUnsafeBytes { d in
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buf in
                let n = try k.mac(.hs256, d, into: buf.baseAddress!)
                return Array(UnsafeBufferPointer(start: buf.baseAddress, count: n))
            }
        }
    }

    /// HMAC-SHA-1, for one-time passwords only (HOTP, RFC 4226 §5.2; TOTP, RFC 6238): their
    /// authenticator apps fix SHA-1. Never a JWS algorithm.
    /// - Throws: `internal_error` if OpenSSL fails.
    public static func sha1(key: [UInt8], data: [UInt8]) throws -> [UInt8] { try HMACKey.sha1(key: key, data: data) }
}

/// AES-256-GCM (NIST SP 800-38D) for sealing data at rest, e.g. private keys in a key ring.
public enum AESGCM {
    /// A sealed box: 12-byte nonce ‖ ciphertext ‖ 16-byte tag.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], authenticating aad: [UInt8] = []) throws -> [UInt8] {
        guard key.count == 32 else { throw TokenError.invalidKey("AES-256-GCM needs a 32-byte key, got \(key.count) bytes") }
        let nonce = try SecureRandom.bytes(12)
        var out = nonce
        var tag = [UInt8](repeating: 0, count: 16)
        let ct = try crypt(encrypt: true, key: key, nonce: nonce, input: plaintext, aad: aad, tag: &tag)
        out += ct
        out += tag
        return out
    }

    /// Opens a box made by ``seal(_:key:authenticating:)``.
    /// - Throws: `invalid_input` when the box was altered, or the key or `aad` differ.
    public static func open(_ box: [UInt8], key: [UInt8], authenticating aad: [UInt8] = []) throws -> [UInt8] {
        guard key.count == 32 else { throw TokenError.invalidKey("AES-256-GCM needs a 32-byte key, got \(key.count) bytes") }
        guard box.count >= 28 else { throw TokenError.invalidInput("sealed data is too short") }
        let nonce = Array(box[0..<12])
        var tag = Array(box[(box.count - 16)...])
        let ct = Array(box[12..<(box.count - 16)])
        return try crypt(encrypt: false, key: key, nonce: nonce, input: ct, aad: aad, tag: &tag)
    }

    private static func crypt(encrypt: Bool, key: [UInt8], nonce: [UInt8], input: [UInt8], aad: [UInt8], tag: inout [UInt8]) throws -> [UInt8] {
        ERR_clear_error()
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else { throw OpenSSLError.fail(.internalError, "no AES-256-GCM") }
        defer { EVP_CIPHER_free(cipher) }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw OpenSSLError.fail(.internalError, "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let enc: Int32 = encrypt ? 1 : 0
        guard EVP_CipherInit_ex2(ctx, cipher, key, nonce, enc, nil) == 1 else { throw OpenSSLError.fail(.internalError, "AES-GCM init") }
        var outLength: Int32 = 0
        if !aad.isEmpty {
            guard EVP_CipherUpdate(ctx, nil, &outLength, aad, Int32(aad.count)) == 1 else { throw OpenSSLError.fail(.internalError, "AES-GCM aad") }
        }
        var out = [UInt8](repeating: 0, count: input.count + 16)
        var total: Int32 = 0
        if !input.isEmpty {
            guard EVP_CipherUpdate(ctx, &out, &outLength, input, Int32(input.count)) == 1 else {
                throw OpenSSLError.fail(.internalError, "AES-GCM update")
            }
            total = outLength
        }
        if !encrypt {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { throw OpenSSLError.fail(.internalError, "AES-GCM tag") }
        }
        let final = out.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(ctx, $0.baseAddress! + Int(total), &outLength) }
        guard final == 1 else {
            ERR_clear_error()
            throw TokenError.invalidInput("sealed data failed authentication (wrong key or altered data)")
        }
        total += outLength
        if encrypt {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else { throw OpenSSLError.fail(.internalError, "AES-GCM tag") }
        }
        return Array(out[0..<Int(total)])
    }
}
