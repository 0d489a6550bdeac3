import Foundation
import Testing
@testable import JOSE

/// Weak keys are refused when read, so they can neither sign nor verify.
@Suite struct WeakKeyTests {
    @Test func rsa1024() throws {
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(pem: TestVectors.text("pem/weak-rsa1024.pkcs8.pem")) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(pem: TestVectors.text("pem/weak-rsa1024.spki.pem")) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK.generateRSA(bits: 1024) }
        // Wycheproof json_web_key_test tcId 8's key, as a JWK.
        let file = try TestVectors.wycheproof("json_web_key_test.json")
        let group = file["testGroups"].array.first { $0["tests"].array.contains { $0["tcId"].int == 8 } }!
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: group["public"]["keys"].array[0].jsonText) }
    }

    @Test func exponentOne() throws {
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(pem: TestVectors.text("pem/weak-rsa-e1.pkcs1-public.pem")) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(der: TestVectors.bytes("pem/weak-rsa-e1.pkcs1-public.der")) }
        // Same modulus as a JWK with e = 1 ("AQ"), and with an even exponent.
        let n = try JWK(pem: TestVectors.text("pem/rsa2048.spki.pem")).jsonObject()["n"]!.stringValue!
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: #"{"kty":"RSA","n":"\#(n)","e":"AQ"}"#) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: #"{"kty":"RSA","n":"\#(n)","e":"AQAA"}"#) }
        _ = try JWK(json: #"{"kty":"RSA","n":"\#(n)","e":"AQAB"}"#)
    }

    @Test func pointOffTheCurve() throws {
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(pem: TestVectors.text("pem/weak-p256-off-curve.spki.pem")) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(der: TestVectors.bytes("pem/weak-p256-off-curve.spki.der")) }
        // The same point as a JWK: y + 1.
        let good = try JWK(pem: TestVectors.text("pem/ecp256.spki.pem")).jsonObject()
        var y = try Base64URL.decode(good["y"]!.stringValue!, what: "y")
        var i = y.count - 1
        while true { y[i] &+= 1; if y[i] != 0 || i == 0 { break }; i -= 1 }
        let json = #"{"kty":"EC","crv":"P-256","x":"\#(good["x"]!.stringValue!)","y":"\#(Base64URL.encode(y))"}"#
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: json) }
        // The P-256 point under a P-384 name, and coordinates of the wrong length.
        let wrongCurve = #"{"kty":"EC","crv":"P-384","x":"\#(good["x"]!.stringValue!)","y":"\#(good["y"]!.stringValue!)"}"#
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: wrongCurve) }
        let short = #"{"kty":"EC","crv":"P-256","x":"\#(Base64URL.encode([UInt8](repeating: 1, count: 31)))","y":"\#(good["y"]!.stringValue!)"}"#
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: short) }
    }

    /// RFC 7518 §3.2: an HMAC key at least as long as the hash.
    @Test func shortHMACSecrets() throws {
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(hmacSecret: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(hmacSecret: []) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: #"{"kty":"oct","k":""}"#) }
        let k32 = try JWK(hmacSecret: [UInt8](repeating: 1, count: 32))
        #expect(k32.allowedAlgorithms == [.hs256])
        let k48 = try JWK(hmacSecret: [UInt8](repeating: 1, count: 48))
        #expect(k48.allowedAlgorithms == [.hs256, .hs384])
        let k64 = try JWK(hmacSecret: [UInt8](repeating: 1, count: 64))
        #expect(k64.allowedAlgorithms == [.hs256, .hs384, .hs512])
        // Refused for signing and for verifying.
        #expect(throws: TokenError(.algorithmNotAllowed, "")) { try JWTSigner(key: k32, algorithm: .hs384) }
        #expect(throws: TokenError(.algorithmNotAllowed, "")) { try k32.check(.hs512, for: .verify) }
        let hs384 = try JWTSigner(key: k48, algorithm: .hs384).sign(["sub": "x"] as ClaimSet)
        let truncatedKey = try JWK(hmacSecret: [UInt8](repeating: 1, count: 32))
        #expect(throws: TokenError(.algorithmNotAllowed, "")) { try JWTVerifier(key: truncatedKey).verify(hs384) }
        // A 32-byte key with alg pinned to HS512 allows nothing.
        let pinned = try JWK(json: #"{"kty":"oct","alg":"HS512","k":"\#(Base64URL.encode([UInt8](repeating: 1, count: 32)))"}"#)
        #expect(pinned.allowedAlgorithms.isEmpty)
    }

    /// Wycheproof json_web_key_test tcId 7: a ROCA-vulnerable modulus (CVE-2017-15361).
    @Test func rocaModulus() throws {
        let file = try TestVectors.wycheproof("json_web_key_test.json")
        let group = file["testGroups"].array.first { $0["tests"].array.contains { $0["tcId"].int == 7 } }!
        let keys = group["public"].isNull ? group["private"] : group["public"]
        #expect(throws: TokenError(.invalidKey, "")) { try JWK(json: keys["keys"].array[0].jsonText) }
        // Freshly generated keys never trip the fingerprint.
        for _ in 0..<3 { _ = try JWK.generateRSA(bits: 2048) }
    }
}
