internal import COpenSSL
import Synchronization

/// One lazily made `EVP_MD_CTX` per (algorithm, sign/verify), published with an atomic
/// compare-exchange: no lock, and after the first call only an acquiring load. Templates are
/// never used directly, only copied (`EVP_MD_CTX_copy_ex` reads them), so they are shared
/// read-only between threads. Freed in `deinit`, once.
final class ContextTemplates: Sendable {
    private final class Slot: Sendable { let raw = Atomic<Int>(0) }
    private let slots: [Slot] = (0..<(2 * JWSAlgorithm.allCases.count)).map { _ in Slot() }

    /// The template for `index`, made by `make` (which returns an owned context) the first time.
    func get(_ index: Int, make: () throws -> OpaquePointer) rethrows -> OpaquePointer {
        let slot = slots[index]
        let current = slot.raw.load(ordering: .acquiring)
        if current != 0 { return OpaquePointer(bitPattern: current)! }
        let made = try make()
        let (exchanged, original) = slot.raw.compareExchange(expected: 0, desired: Int(bitPattern: made), ordering: .acquiringAndReleasing)
        if exchanged { return made }
        EVP_MD_CTX_free(made)  // another thread published first
        return OpaquePointer(bitPattern: original)!
    }

    deinit {
        for slot in slots {
            let v = slot.raw.load(ordering: .acquiring)
            if v != 0 { EVP_MD_CTX_free(OpaquePointer(bitPattern: v)) }
        }
    }
}

/// An algorithm implementation fetched from the default provider once, for the process's life.
/// OpenSSL 3 performs an implicit fetch on every `EVP_get_digestbyname`-style call; explicit
/// fetches kept here avoid that cost (openssl-crypto(7), "Performance").
final class FetchedDigest: @unchecked Sendable {
    let pointer: OpaquePointer
    let size: Int
    init(_ name: String) {
        guard let md = EVP_MD_fetch(nil, name, nil) else { fatalError("OpenSSL has no \(name) digest") }
        pointer = md
        size = Int(EVP_MD_get_size(md))
    }
    // Never freed: lives as long as the process, like the provider that owns it.

    static let sha256 = FetchedDigest("SHA256")
    static let sha384 = FetchedDigest("SHA384")
    static let sha512 = FetchedDigest("SHA512")
}

final class FetchedMAC: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ name: String) {
        guard let mac = EVP_MAC_fetch(nil, name, nil) else { fatalError("OpenSSL has no \(name) MAC") }
        pointer = mac
    }
    static let hmac = FetchedMAC("HMAC")
}

enum OpenSSLError {
    /// Drains the whole OpenSSL error queue into one readable string (never key material:
    /// OpenSSL's reason strings do not carry it).
    static func drain() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if let r = ERR_reason_error_string(code) {
                reasons.append(String(cString: r))
            } else {
                reasons.append("error 0x\(String(code, radix: 16))")
            }
        }
        return reasons.isEmpty ? "unknown OpenSSL error" : reasons.joined(separator: "; ")
    }

    static func fail(_ code: TokenError.Code, _ what: String) -> TokenError {
        TokenError(code, "\(what): \(drain())")
    }
}

/// Big-endian bytes of an OpenSSL BIGNUM, left-padded to `width` when given.
func bignumBytes(_ bn: OpaquePointer, width: Int? = nil) -> [UInt8] {
    let n = (Int(BN_num_bits(bn)) + 7) / 8
    let w = max(width ?? n, n)
    var out = [UInt8](repeating: 0, count: w)
    _ = out.withUnsafeMutableBufferPointer { BN_bn2binpad(bn, $0.baseAddress, Int32(w)) }
    return out
}
