import Foundation
@testable import JOSE

// libFuzzer target "jwk": JWK and JWK Set parsing (RFC 7517), then every operation a caller
// may perform on a key that loaded: export, thumbprint, re-import, sign and verify.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWK(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    if let key = try? JWK(json: String(decoding: bytes, as: UTF8.self)) {
        Fuzz.exercise(key)
    }
    if let set = try? JWKSet(jsonBytes: bytes) {
        for key in set.keys.prefix(8) { Fuzz.exercise(key) }
        for alg in JWSAlgorithm.allCases {
            _ = try? set.candidates(keyID: nil, algorithm: alg)
            _ = try? set.candidates(keyID: set.keys.first?.keyID ?? "k", algorithm: alg)
        }
        _ = try? set.jsonString()
        _ = try? set.jsonString(includePrivate: true, pretty: true)
        _ = set.rejected.map(\.error.message)
    }
    return 0
}
