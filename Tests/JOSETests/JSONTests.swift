import Foundation
import Testing
@testable import JOSE

/// JSON as jansson reads it for TokenTool: duplicates refused, bounded, integers exact.
@Suite struct JSONTests {
    static let key = try! JWK(hmacSecret: [UInt8](repeating: 0x42, count: 32))

    /// A compact HS256 JWS over raw header and payload bytes (no JSON writer involved).
    static func token(header: String = #"{"alg":"HS256"}"#, payload: String) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let mac = try HMAC.sha256(key: [UInt8](repeating: 0x42, count: 32), data: Array(input.utf8))
        return input + "." + Base64URL.encode(mac)
    }

    static func verify(_ token: String, limits: TokenLimits = .default) throws -> VerifiedToken<ClaimSet> {
        try JWTVerifier(key: key, options: VerifierOptions(limits: limits)).verify(token)
    }

    /// jansson's "near '…'" quotes the input: it never reaches a message (a hostile
    /// server's reply, or a token's bytes, must not be echoed into an error).
    @Test func parseErrorsDoNotQuoteTheInput() throws {
        for text in [#"{"keys": internal-admin-secret}"#, #"internal-admin-secret"#, #"{"a":"b" internal-admin-secret}"#] {
            let error = #expect(throws: TokenError.self) { try JSONValue(parsing: text) }
            #expect(error?.code == .malformed)
            #expect(error?.message.contains("internal") == false, "\(error?.message ?? "")")
            #expect(error?.message.contains("offset") == true)
        }
        let header = #expect(throws: TokenError.self) { try UnverifiedToken(Base64URL.encode(Array(#"{"alg":secret-bytes}"#.utf8)) + ".e30.c2ln") }
        #expect(header?.message.contains("secret") == false, "\(header?.message ?? "")")
    }

    @Test func duplicateMemberNamesRefused() throws {
        #expect(throws: TokenError(.malformed, "")) { try JSONValue(parsing: #"{"a":1,"a":2}"#) }
        #expect(throws: TokenError(.malformed, "")) { try JSONValue(parsing: #"{"o":{"b":true,"b":false}}"#) }
        // In a token: claims and header.
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(payload: #"{"sub":"a","sub":"b"}"#)) }
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(header: #"{"alg":"HS256","alg":"none"}"#, payload: "{}")) }
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(header: #"{"alg":"HS256","kid":"a","kid":"b"}"#, payload: "{}")) }
        // Distinct names that differ only in case are fine.
        let ok = try Self.verify(Self.token(payload: #"{"sub":"a","Sub":"b"}"#))
        #expect(ok.claims["Sub"] == "b")
    }

    @Test func integersKeepEveryDigit() throws {
        // 2^53 + 1 is the first integer a Double cannot hold.
        #expect(try JSONValue(parsing: "9007199254740993") == .int(9_007_199_254_740_993))
        #expect(try JSONValue(parsing: "-9223372036854775808") == .int(Int64.min))
        #expect(try JSONValue(parsing: "9223372036854775807") == .int(Int64.max))
        let verified = try Self.verify(Self.token(payload: #"{"big":9007199254740993,"neg":-9007199254740993}"#))
        #expect(verified.claims["big"] == .int(9_007_199_254_740_993))
        #expect(verified.claims["neg"] == .int(-9_007_199_254_740_993))
        // And back out unchanged.
        #expect(JSONValue.int(9_007_199_254_740_993).jsonString == "9007199254740993")
        let reparsed = try JSONSerialization.jsonObject(with: Data(JSONValue.object(verified.claims.object).jsonBytes)) as? [String: Any]
        #expect((reparsed?["big"] as? NSNumber)?.int64Value == 9_007_199_254_740_993)
        // Out of Int64 range: refused rather than rounded.
        #expect(throws: TokenError(.malformed, "")) { try JSONValue(parsing: "18446744073709551616") }
    }

    @Test func depthLimit() throws {
        let limits = JSONLimits(maxBytes: 1024, maxDepth: 3, maxTopLevelMembers: 10)
        _ = try JSONValue(parsing: #"{"a":{"b":[1]}}"#, limits: limits)  // depth 3
        #expect(throws: TokenError(.malformed, "")) { try JSONValue(parsing: #"{"a":{"b":[[1]]}}"#, limits: limits) }
        // Brackets inside strings do not count.
        _ = try JSONValue(parsing: #"{"a":"[[[[{{{{","b":{"c":"]]]"}}"#, limits: limits)
        // Claims: default limit 32.
        let deep = String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33)
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(payload: deep)) }
        let fine = String(repeating: #"{"a":"#, count: 32) + "1" + String(repeating: "}", count: 32)
        _ = try Self.verify(Self.token(payload: fine))
        // Header: default limit 4.
        #expect(throws: TokenError(.malformed, "")) {
            try Self.verify(Self.token(header: #"{"alg":"HS256","x":[[[[1]]]]}"#, payload: "{}"))
        }
    }

    @Test func sizeLimit() throws {
        let limits = JSONLimits(maxBytes: 16, maxDepth: 8, maxTopLevelMembers: 10)
        _ = try JSONValue(parsing: #"{"a":"0123456"}"#, limits: limits)  // 15 bytes
        #expect(throws: TokenError(.malformed, "")) { try JSONValue(parsing: #"{"a":"012345678"}"#, limits: limits) }
        let small = TokenLimits(maxTokenBytes: 64 * 1024, claims: JSONLimits(maxBytes: 100, maxDepth: 8, maxTopLevelMembers: 10))
        #expect(throws: TokenError(.malformed, "")) {
            try Self.verify(Self.token(payload: #"{"x":""# + String(repeating: "a", count: 100) + #""}"#), limits: small)
        }
        // The whole token is bounded before anything is decoded.
        let tiny = TokenLimits(maxTokenBytes: 40)
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(payload: #"{"sub":"abcdefghijklmnop"}"#), limits: tiny) }
    }

    @Test func memberLimit() throws {
        func claims(_ n: Int) -> String { "{" + (0..<n).map { #""c\#($0)":\#($0)"# }.joined(separator: ",") + "}" }
        _ = try Self.verify(Self.token(payload: claims(256)))
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(payload: claims(257))) }
        let header = "{" + ([#""alg":"HS256""#] + (0..<32).map { #""h\#($0)":1"# }).joined(separator: ",") + "}"
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(header: header, payload: "{}")) }
    }

    @Test func notJSONObject() throws {
        for payload in ["[]", "1", "\"s\"", "null", "{", "{\"a\":}", "{\"a\":1}x", "{'a':1}", "{\"a\":NaN}"] {
            #expect(throws: TokenError(.malformed, ""), "\(payload)") { try Self.verify(Self.token(payload: payload)) }
        }
        // NUL inside a string, invalid UTF-8.
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(Self.token(payload: #"{"a":"x\u0000y"}"#)) }
        let invalidUTF8 =
            Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + "." + Base64URL.encode([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])
        let mac = try HMAC.sha256(key: [UInt8](repeating: 0x42, count: 32), data: Array(invalidUTF8.utf8))
        #expect(throws: TokenError(.malformed, "")) { try Self.verify(invalidUTF8 + "." + Base64URL.encode(mac)) }
    }

    /// Our writer's output is read back identically by Foundation (an independent parser).
    @Test func writerRoundTripsThroughFoundation() throws {
        let value: JSONValue = .object([
            "s": "quote \" backslash \\ slash / nl \n tab \t ctl \u{01} é ’ 😀",
            "i": .int(-42), "d": 1.5, "t": true, "f": false, "n": nil, "a": [1, "x", nil],
            "o": .object(["k": "v"]),
        ])
        let parsed = try JSONSerialization.jsonObject(with: Data(value.jsonBytes), options: [.fragmentsAllowed]) as! [String: Any]
        #expect(parsed["s"] as? String == "quote \" backslash \\ slash / nl \n tab \t ctl \u{01} é ’ 😀")
        #expect((parsed["i"] as? NSNumber)?.intValue == -42)
        #expect((parsed["d"] as? NSNumber)?.doubleValue == 1.5)
        #expect(parsed["n"] is NSNull)
        #expect(((parsed["o"] as? [String: Any])?["k"]) as? String == "v")
        #expect(try JSONValue(parsing: value.jsonString) == value)
        // Member order is kept.
        #expect(try JSONValue(parsing: #"{"z":1,"a":2,"m":3}"#).objectValue?.keys == ["z", "a", "m"])
    }
}
