import Foundation
import Testing
@testable import JOSE

/// The verify path reads claims and header members lazily from the jansson tree and bounds
/// nesting with a pre-scan that skips strings (docs/performance.md). These check that what
/// comes back is what the token says, and that the depth bound still holds around strings.
@Suite struct VerifyPathTests {
    static let payload =
        #"{"iss":"https://i","sub":"42","aud":["a","b"],"exp":4102444800,"nbf":1.5,"iat":1790000000,"n\u0061me":"J\"[{","x":{"y":[1,2]}}"#

    @Test func lazyClaimsMatchTheirMaterializedForm() throws {
        let key = try JWK.generateSecret(bytes: 32)
        let token = try JWTSigner(key: key).signJWS(payload: Array(Self.payload.utf8))
        let verified = try JWTVerifier(key: key).verify(token)
        let c = verified.claims
        #expect(c.issuer == "https://i")
        #expect(c.subject == "42")
        #expect(c.audience == ["a", "b"])
        #expect(c.expiresAt == Date(timeIntervalSince1970: 4_102_444_800))
        #expect(c.notBefore == Date(timeIntervalSince1970: 1.5))
        #expect(c["name"] == .string("J\"[{"))
        #expect(c["x"] == .object(["y": [1, 2]]))
        #expect(c["missing"] == nil)
        #expect(c["iss\u{0}x"] == nil)  // exact-byte lookup: a NUL does not cut the name short
        #expect(c.object.keys == ["iss", "sub", "aud", "exp", "nbf", "iat", "name", "x"])
        #expect(c == ClaimSet(c.object))
        var changed = c
        changed.subject = "43"
        #expect(changed.subject == "43" && changed.issuer == "https://i" && c.subject == "42")
        #expect(verified.header.members["alg"] == .string("HS256"))
        #expect(verified.header.members.keys == ["alg", "typ"])
        let unverified = try UnverifiedToken(token)
        #expect(unverified.claims == c)
    }

    @Test(arguments: [
        (#"{"a":"[[[[[[[[","b":1}"#, true),  // brackets inside a string do not nest
        (#"{"a":"\"[[[[[[[[","b":1}"#, true),  // nor after an escaped quote
        (#"{"a":"\\","b":[[[[[[[[1]]]]]]]]}"#, false),  // an escaped backslash ends the string: these nest
        (#"{"a":[[[[1]]]]}"#, true),  // depth 5 with a limit of 5
        (#"{"a":[[[[[1]]]]]}"#, false),  // depth 6
    ])
    func depthBoundAroundStrings(json: String, accepted: Bool) {
        let parsed = try? JSONDocument(parsing: Array(json.utf8), limits: JSONLimits(maxDepth: 5), what: "t")
        #expect((parsed != nil) == accepted, "\(json)")
    }
}
