import Foundation
import Testing
@testable import JOSE

/// JWK Sets: kid selection never falls back, ambiguity is refused, each key decides its algorithms.
@Suite struct JWKSetTests {
    static func ec(_ kid: String?) throws -> JWK { var k = try JWK.generate(curve: .p256); k.keyID = kid; return k }

    @Test func selectsByKid() throws {
        let a = try Self.ec("a"), b = try Self.ec("b")
        let set = try JWKSet(keys: [a.publicKey, b.publicKey])
        let verifier = JWTVerifier(keys: set)
        let tokenB = try JWTSigner(key: b).sign(["sub": "x"] as ClaimSet)
        #expect(try verifier.verify(tokenB).keyID == "b")
        #expect(try set.candidates(keyID: "a", algorithm: .es256).map(\.keyID) == ["a"])
    }

    /// A kid that matches no key is key_not_found, even when another key would verify.
    @Test func unknownKidNeverFallsBack() throws {
        let a = try Self.ec("a")
        var sameKeyOtherKid = a
        sameKeyOtherKid.keyID = "zzz"
        let token = try JWTSigner(key: sameKeyOtherKid).sign(["sub": "x"] as ClaimSet)
        // The only trusted key would verify the signature, but the kid does not match it.
        #expect(throws: TokenError(.keyNotFound, "")) { try JWTVerifier(keys: JWKSet(keys: [a.publicKey])).verify(token) }
        #expect(throws: TokenError(.keyNotFound, "")) { try JWKSet(keys: [a.publicKey]).candidates(keyID: "zzz", algorithm: .es256) }
        // Also when the trusted key has no kid at all.
        var noKid = a.publicKey
        noKid.keyID = nil
        #expect(throws: TokenError(.keyNotFound, "")) { try JWTVerifier(keys: JWKSet(keys: [noKid])).verify(token) }
    }

    @Test func ambiguousKid() throws {
        let a1 = try Self.ec("dup"), a2 = try Self.ec("dup")
        let set = try JWKSet(keys: [a1.publicKey, a2.publicKey])
        let token = try JWTSigner(key: a1).sign(["sub": "x"] as ClaimSet)
        #expect(throws: TokenError(.keyNotFound, "")) { try JWTVerifier(keys: set).verify(token) }
        // Also from JSON, and when one of the two is refused on load (Wycheproof json_web_key tcId 4).
        let good = try a1.publicKey.jsonString()
        let broken = #"{"kty":"EC","kid":"dup","crv":"P-256","x":"AA","y":"AA"}"#
        let fromJSON = try JWKSet(json: #"{"keys":[\#(good),\#(broken)]}"#)
        #expect(fromJSON.keys.count == 1 && fromJSON.rejected.count == 1)
        #expect(throws: TokenError(.keyNotFound, "")) { try JWTVerifier(keys: fromJSON).verify(token) }
    }

    /// A set may hold secrets and public keys together (issue 11 item 8); each key keeps to its
    /// own algorithms, and such a set is never written out as a public JWKS.
    @Test func secretsAndPublicKeysTogetherEachKeyDecides() throws {
        var secret = try JWK.generateSecret()
        secret.keyID = "s"
        let ec = try Self.ec("e")
        let json = #"{"keys":[\#(try secret.jsonString(includePrivate: true)),\#(try ec.publicKey.jsonString())]}"#
        for set in [try JWKSet(keys: [secret, ec.publicKey]), try JWKSet(json: json)] {
            #expect(set.keys.count == 2)
            let verifier = JWTVerifier(keys: set)
            #expect(try verifier.verify(try JWTSigner(key: secret).sign(["sub": "x"] as ClaimSet)).keyID == "s")
            #expect(try verifier.verify(try JWTSigner(key: ec).sign(["sub": "x"] as ClaimSet)).keyID == "e")
            // The EC key never verifies an HS256 token, even one naming it.
            var confused = secret
            confused.keyID = "e"
            #expect(throws: TokenError(.algorithmNotAllowed, "")) { try verifier.verify(try JWTSigner(key: confused).sign(["sub": "x"] as ClaimSet)) }
            #expect(throws: TokenError(.invalidKey, "")) { try set.jsonString() }
            _ = try set.jsonString(includePrivate: true)
        }
    }

    /// Wycheproof json_web_key_test tcId 4: one of two keys sharing a kid is refused on load;
    /// rebuilt with the refusals kept, the set still calls the kid ambiguous.
    @Test func refusedKidsSurviveARebuild() throws {
        let file = try TestVectors.wycheproof("json_web_key_test.json")
        let group = file["testGroups"].array.first { $0["tests"].array.contains { $0["tcId"].int == 4 } }!
        let token = group["tests"].array.first { $0["tcId"].int == 4 }!["jws"].string
        let set = try JWKSet(json: group["private"].jsonText)
        #expect(set.keys.count == 1 && set.rejected.count == 1)
        let rebuilt = try JWKSet(keys: set.keys, rejected: set.rejected)
        #expect(throws: TokenError(.keyNotFound, "")) { try JWTVerifier(keys: rebuilt).verifySignature(token) }
    }

    @Test func noKidTriesKeysThatAllowTheAlgorithm() throws {
        let ec = try Self.ec(nil)
        let rsa = try JWK.generateRSA()
        let set = try JWKSet(keys: [rsa.publicKey, ec.publicKey])
        var signer = try JWTSigner(key: ec)
        signer.keyID = nil
        _ = try JWTVerifier(keys: set).verify(signer.sign(["sub": "x"] as ClaimSet))
        // An EdDSA token: no key allows it.
        let ed = try JWK.generate(curve: .ed25519)
        #expect(throws: TokenError(.keyNotFound, "")) { try JWTVerifier(keys: set).verify(JWTSigner(key: ed).sign(["sub": "x"] as ClaimSet)) }
    }

    @Test func encryptionKeysNeverVerify() throws {
        var key = try Self.ec("k")
        let token = try JWTSigner(key: key).sign(["sub": "x"] as ClaimSet)
        key.use = "enc"
        let result = Outcome { _ = try JWTVerifier(keys: JWKSet(keys: [key.publicKey])).verify(token) }
        #expect(result.code == .algorithmNotAllowed || result.code == .keyNotFound)
        key.use = nil
        key.keyOperations = ["encrypt"]
        #expect(throws: TokenError(.algorithmNotAllowed, "")) { try JWTVerifier(keys: JWKSet(keys: [key.publicKey])).verify(token) }
        key.keyOperations = ["verify"]
        _ = try JWTVerifier(keys: JWKSet(keys: [key.publicKey])).verify(token)
    }

    @Test func refusedKeysAreReported() throws {
        let good = try Self.ec("good").publicKey.jsonString()
        let json = #"{"keys":[\#(good),{"kty":"RSA","kid":"weak","n":"AQAB","e":"AQAB"},{"kty":"XYZ","kid":"odd"},"notakey"]}"#
        let set = try JWKSet(json: json)
        #expect(set.keys.map(\.keyID) == ["good"])
        #expect(set.rejected.count == 3)
        #expect(set.rejected.allSatisfy { $0.error.code == .invalidKey })
        #expect(throws: TokenError(.keyNotFound, "")) { try set.candidates(keyID: "weak", algorithm: .rs256) }
    }

    @Test func limitsAndShape() throws {
        let one = try Self.ec("a").publicKey.jsonString()
        let many = #"{"keys":["# + Array(repeating: one, count: 5).joined(separator: ",") + "]}"
        #expect(throws: TokenError(.invalidKey, "")) { try JWKSet(json: many, limits: JWKSet.Limits(maxBytes: 1 << 20, maxKeys: 4)) }
        #expect(throws: TokenError(.invalidKey, "")) { try JWKSet(json: many, limits: JWKSet.Limits(maxBytes: 100, maxKeys: 100)) }
        for bad in ["[]", "{}", #"{"keys":{}}"#, #"{"keys":"x"}"#, "not json", #"{"keys":[],"keys":[]}"#] {
            #expect(throws: TokenError(.invalidKey, ""), "\(bad)") { try JWKSet(json: bad) }
        }
        // Public export of a set never leaks private members.
        let set = try JWKSet(keys: [try Self.ec("p")])
        let exported = try JWKSet(json: set.jsonString())
        #expect(exported.keys.count == 1 && !exported.keys[0].isPrivate)
    }
}
