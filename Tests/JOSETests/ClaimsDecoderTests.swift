import Foundation
import Testing
@testable import JOSE

/// `verify(_:as:)`: Codable claims decoded straight from the jansson tree.
@Suite struct ClaimsDecoderTests {
    static let now: Int64 = 1_800_000_000
    static let key = try! JWK(hmacSecret: [UInt8](repeating: 0x33, count: 48))

    static func token(_ payload: String) throws -> String {
        try JWTSigner(key: key, algorithm: .hs384).signJWS(payload: Array(payload.utf8))
    }

    static func decode<T: Decodable & Sendable>(_ payload: String, as type: T.Type) throws -> T {
        try JWTVerifier(key: key, options: VerifierOptions(clock: .fixed(unixSeconds: now))).verify(token(payload), as: type).claims
    }

    struct Address: Codable, Sendable, Equatable { var city: String; var zip: String? }
    struct Claims: Codable, Sendable, Equatable {
        var sub: String
        var exp: Date
        var iat: Date?
        var admin: Bool
        var scopes: [String]
        var big: Int64
        var ratio: Double
        var small: UInt8
        var address: Address
        var tags: [String: Int]
        var site: URL?
        var nothing: String?
        var any: JSONValue?
    }

    @Test func decodesEverything() throws {
        let payload = #"""
            {"sub":"42","exp":1800000060,"iat":1799999999.5,"admin":true,"scopes":["read","write"],"big":9007199254740993,
             "ratio":0.25,"small":255,"address":{"city":"Zürich","zip":null},"tags":{"a":1,"b":2},"site":"https://x.example/p",
             "nothing":null,"any":{"k":[1,"two",null]}}
            """#
        let c = try Self.decode(payload, as: Claims.self)
        #expect(c.sub == "42")
        #expect(c.exp == Date(timeIntervalSince1970: 1_800_000_060))
        #expect(c.iat == Date(timeIntervalSince1970: 1_799_999_999.5))
        #expect(c.admin && c.scopes == ["read", "write"])
        #expect(c.big == 9_007_199_254_740_993)  // 2^53+1, every digit
        #expect(c.ratio == 0.25 && c.small == 255)
        #expect(c.address == Address(city: "Zürich", zip: nil))
        #expect(c.tags == ["a": 1, "b": 2])
        #expect(c.site == URL(string: "https://x.example/p"))
        #expect(c.nothing == nil)
        #expect(c.any == .object(["k": [1, "two", nil]]))
    }

    /// The result equals what Foundation's own decoder makes of the same JSON (independent parse).
    @Test func agreesWithFoundation() throws {
        struct Simple: Codable, Sendable, Equatable { var sub: String; var n: Int; var list: [Double]; var nested: [String: [Bool]] }
        let payload = #"{"sub":"é’😀\n","n":-7,"list":[1,2.5,-0.125],"nested":{"x":[true,false]}}"#
        let ours = try Self.decode(payload, as: Simple.self)
        let foundation = try JSONDecoder().decode(Simple.self, from: Data(payload.utf8))
        #expect(ours == foundation)
    }

    @Test func missingClaim() throws {
        struct Need: Decodable, Sendable { var sub: String; var role: String }
        #expect(throws: TokenError(.missingClaim, "", claim: "role")) { try Self.decode(#"{"sub":"a"}"#, as: Need.self) }
        struct Outer: Decodable, Sendable { var address: Address }
        // Nested: the claim named is the top-level one.
        #expect(throws: TokenError(.missingClaim, "", claim: "address")) { try Self.decode(#"{"address":{"zip":"1"}}"#, as: Outer.self) }
    }

    @Test func wrongTypes() throws {
        struct D: Decodable, Sendable { var exp: Date }
        #expect(throws: TokenError(.invalidClaim, "", claim: "exp")) { try Self.decode(#"{"exp":"1800000060"}"#, as: D.self) }
        struct S: Decodable, Sendable { var sub: String }
        #expect(throws: TokenError(.invalidClaim, "", claim: "sub")) { try Self.decode(#"{"sub":42}"#, as: S.self) }
        struct N: Decodable, Sendable { var n: Int8 }
        #expect(throws: TokenError(.invalidClaim, "", claim: "n")) { try Self.decode(#"{"n":300}"#, as: N.self) }
        #expect(throws: TokenError(.invalidClaim, "", claim: "n")) { try Self.decode(#"{"n":1.5}"#, as: N.self) }
        struct B: Decodable, Sendable { var admin: Bool }
        #expect(throws: TokenError(.invalidClaim, "", claim: "admin")) { try Self.decode(#"{"admin":"true"}"#, as: B.self) }
        struct A: Decodable, Sendable { var scopes: [String] }
        #expect(throws: TokenError(.invalidClaim, "", claim: "scopes")) { try Self.decode(#"{"scopes":"read"}"#, as: A.self) }
    }

    /// Registered claims are validated before decoding, whatever the Codable type says.
    @Test func validationStillApplies() throws {
        struct S: Decodable, Sendable { var sub: String }
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try Self.decode(#"{"sub":"a","exp":1800000000}"#, as: S.self) }
        #expect(throws: TokenError(.invalidClaim, "", claim: "nbf")) { try Self.decode(#"{"sub":"a","nbf":"soon"}"#, as: S.self) }
    }

    /// Encodable claims signed by JWTSigner come back through the decoder (Date as NumericDate).
    @Test func encodableRoundTrip() throws {
        struct C: Codable, Sendable, Equatable { var sub: String; var exp: Date; var n: Int64 }
        let claims = C(sub: "u", exp: Date(timeIntervalSince1970: 1_800_000_100), n: 9_007_199_254_740_993)
        let token = try JWTSigner(key: Self.key, algorithm: .hs384).sign(claims)
        let back = try JWTVerifier(key: Self.key, options: VerifierOptions(clock: .fixed(unixSeconds: Self.now))).verify(token, as: C.self)
        #expect(back.claims == claims)
        let raw = try JSONSerialization.jsonObject(with: Data(try UnverifiedToken(token).payload)) as? [String: Any]
        #expect((raw?["exp"] as? NSNumber)?.int64Value == 1_800_000_100)
    }
}
