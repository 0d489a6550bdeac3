import Foundation
@testable import JOSE

// libFuzzer target "pem": PEM (RFC 7468) and DER key import: SPKI, PKCS#1, PKCS#8, SEC1 and
// X.509 certificates, then every operation a caller may perform on a key that loaded.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPEM(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    if let key = try? JWK(pem: String(decoding: bytes, as: UTF8.self)) {
        Fuzz.exercise(key)
    }
    if let key = try? JWK(der: bytes) {
        Fuzz.exercise(key)
    }
    return 0
}
