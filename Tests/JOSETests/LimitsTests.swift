import Foundation
import Testing
@testable import JOSE

/// Bounded resources: every limit is enforced at its boundary (at the limit: accepted;
/// one past: refused with the documented code) and, where docs/security.md says so, configurable.
@Suite struct LimitsTests {
    static let secret = try! JWK(hmacSecret: Array(repeating: 0x51, count: 32))

    static func token(_ header: String, _ payload: String) -> String {
        let input = Hostile.b64(header) + "." + Hostile.b64(payload)
        let mac = try! HMAC.sha256(key: Array(repeating: 0x51, count: 32), data: Array(input.utf8))
        return input + "." + Base64URL.encode(mac)
    }

    static func verify(_ token: String, _ limits: TokenLimits = .default) -> TokenError.Code? {
        Hostile.code { _ = try JWTVerifier(key: secret, options: VerifierOptions(limits: limits)).verify(token) }
    }

    static func members(_ n: Int, prefix: String = "m") -> String {
        (0..<n).map { #""\#(prefix)\#($0)":\#($0)"# }.joined(separator: ",")
    }

    @Test func defaultsAreTheDocumentedOnes() {
        let d = TokenLimits.default
        #expect(d.maxTokenBytes == 65_536)
        #expect(d.header == JSONLimits(maxBytes: 8192, maxDepth: 4, maxTopLevelMembers: 32))
        #expect(d.claims == JSONLimits(maxBytes: 65_536, maxDepth: 32, maxTopLevelMembers: 256))
        #expect(JWKSet.Limits.default == JWKSet.Limits(maxBytes: 524_288, maxKeys: 256))
        #expect(PEM.maxBytes == 1_048_576)
    }

    @Test func tokenBytes() {
        let t = Self.token(#"{"alg":"HS256"}"#, #"{"sub":"x"}"#)
        var limits = TokenLimits.default
        limits.maxTokenBytes = t.utf8.count
        #expect(Self.verify(t, limits) == nil)
        limits.maxTokenBytes -= 1
        #expect(Self.verify(t, limits) == .malformed)
    }

    @Test func headerBytesDepthAndMembers() {
        let header = #"{"alg":"HS256","x":[[1]]}"#
        let t = Self.token(header, #"{"sub":"x"}"#)
        var limits = TokenLimits.default
        limits.header.maxBytes = header.utf8.count
        #expect(Self.verify(t, limits) == nil)
        limits.header.maxBytes -= 1
        #expect(Self.verify(t, limits) == .malformed)
        limits = .default
        limits.header.maxDepth = 3
        #expect(Self.verify(t, limits) == nil)
        limits.header.maxDepth = 2
        #expect(Self.verify(t, limits) == .malformed)
        // 32 members by default (alg + 31), 33 refused, more when configured.
        let at = Self.token(#"{"alg":"HS256",\#(Self.members(31))}"#, #"{"sub":"x"}"#)
        let over = Self.token(#"{"alg":"HS256",\#(Self.members(32))}"#, #"{"sub":"x"}"#)
        #expect(Self.verify(at) == nil)
        #expect(Self.verify(over) == .malformed)
        limits = .default
        limits.header.maxTopLevelMembers = 33
        #expect(Self.verify(over, limits) == nil)
    }

    @Test func claimsBytesDepthAndMembers() {
        let payload = #"{"sub":"x","pad":"\#(String(repeating: "p", count: 1000))"}"#
        let t = Self.token(#"{"alg":"HS256"}"#, payload)
        var limits = TokenLimits.default
        limits.claims.maxBytes = payload.utf8.count
        #expect(Self.verify(t, limits) == nil)
        limits.claims.maxBytes -= 1
        #expect(Self.verify(t, limits) == .malformed)
        // Depth 32 (the object itself is level 1) accepted, 33 refused, 40 when configured.
        let deep32 = Self.token(#"{"alg":"HS256"}"#, #"{"a":\#(HostileInputTests.nested(31))}"#)
        let deep33 = Self.token(#"{"alg":"HS256"}"#, #"{"a":\#(HostileInputTests.nested(32))}"#)
        #expect(Self.verify(deep32) == nil)
        #expect(Self.verify(deep33) == .malformed)
        limits = .default
        limits.claims.maxDepth = 40
        #expect(Self.verify(deep33, limits) == nil)
        // 256 claims accepted, 257 refused, more when configured.
        let at = Self.token(#"{"alg":"HS256"}"#, "{\(Self.members(256))}")
        let over = Self.token(#"{"alg":"HS256"}"#, "{\(Self.members(257))}")
        #expect(Self.verify(at) == nil)
        #expect(Self.verify(over) == .malformed)
        limits = .default
        limits.claims.maxTopLevelMembers = 257
        #expect(Self.verify(over, limits) == nil)
    }

    @Test func largerTokensWhenConfigured() {
        // A 100 KB claim set: refused by default (token and claims limits), accepted when both are raised.
        let t = Self.token(#"{"alg":"HS256"}"#, #"{"sub":"x","blob":"\#(String(repeating: "b", count: 100_000))"}"#)
        #expect(Self.verify(t) == .malformed)
        var limits = TokenLimits.default
        limits.maxTokenBytes = 200_000
        #expect(Self.verify(t, limits) == .malformed)
        limits.claims.maxBytes = 200_000
        #expect(Self.verify(t, limits) == nil)
    }

    @Test func jwksBytesAndKeys() throws {
        let key = try Hostile.ec[.p256]!.publicKey.jsonObject()
        func doc(_ n: Int) -> String {
            var keys: [JSONValue] = []
            for i in 0..<n { var k = key; k["kid"] = .string("k\(i)"); keys.append(.object(k)) }
            return JSONValue.object(["keys": .array(keys)]).jsonString
        }
        #expect(try JWKSet(json: doc(256)).keys.count == 256)
        #expect(Hostile.code { _ = try JWKSet(json: doc(257)) } == .invalidKey)
        #expect(try JWKSet(json: doc(257), limits: JWKSet.Limits(maxBytes: 1 << 20, maxKeys: 300)).keys.count == 257)
        let three = doc(3)
        #expect(try JWKSet(json: three, limits: JWKSet.Limits(maxBytes: three.utf8.count, maxKeys: 3)).keys.count == 3)
        #expect(Hostile.code { _ = try JWKSet(json: three, limits: JWKSet.Limits(maxBytes: three.utf8.count - 1, maxKeys: 3)) } == .invalidKey)
        #expect(Hostile.code { _ = try JWKSet(json: three, limits: JWKSet.Limits(maxBytes: 1 << 20, maxKeys: 2)) } == .invalidKey)
    }

    @Test func singleJWKIsAtMost64KiB() throws {
        var o = try Hostile.ec[.p256]!.publicKey.jsonObject()
        o["x5t"] = .string(String(repeating: "A", count: 60_000))
        #expect(Hostile.code { _ = try JWK(jsonObject: o) } == nil)
        #expect(Hostile.code { _ = try JWK(json: JSONValue.object(o).jsonString) } == nil)
        o["x5t"] = .string(String(repeating: "A", count: 70_000))
        #expect(Hostile.code { _ = try JWK(json: JSONValue.object(o).jsonString) } == .invalidKey)
    }

    @Test func pemAndDERAreAtMost1MiB() throws {
        let pem = try Hostile.ec[.p256]!.publicKey.pem()
        let roomAtLimit = PEM.maxBytes - pem.utf8.count
        #expect(Hostile.code { _ = try JWK(pem: pem + String(repeating: "\n", count: roomAtLimit)) } == nil)
        #expect(Hostile.code { _ = try JWK(pem: pem + String(repeating: "\n", count: roomAtLimit + 1)) } == .invalidKey)
        let der = try Hostile.ec[.p256]!.publicKeyDER()
        #expect(Hostile.code { _ = try JWK(der: der + [UInt8](repeating: 0, count: PEM.maxBytes)) } == .invalidKey)
    }

    @Test func hmacSecretLengths() {
        #expect(Hostile.code { _ = try JWK(hmacSecret: [UInt8](repeating: 1, count: 31)) } == .invalidKey)
        #expect(Hostile.code { _ = try JWK(hmacSecret: [UInt8](repeating: 1, count: 32)) } == nil)
        #expect(Hostile.code { _ = try JWK(hmacSecret: [UInt8](repeating: 1, count: 4096)) } == nil)
        #expect(Hostile.code { _ = try JWK(hmacSecret: [UInt8](repeating: 1, count: 4097)) } == .invalidKey)
        // RFC 7518 §3.2: a 32-byte secret is too short for HS384 and HS512.
        let k = try! JWK(hmacSecret: [UInt8](repeating: 1, count: 32))
        #expect(Hostile.code { _ = try JWTSigner(key: k, algorithm: .hs384) } == .algorithmNotAllowed)
    }

    @Test func rsaModulusBits() {
        #expect(Hostile.code { _ = try JWK.generateRSA(bits: 1024) } == .invalidKey)
        #expect(Hostile.code { _ = try JWK.generateRSA(bits: 16_385) } == .invalidKey)
    }
}
