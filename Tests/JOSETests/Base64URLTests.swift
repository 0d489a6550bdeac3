import Foundation
import Testing
@testable import JOSE

/// Strict base64url (RFC 4648 §5, RFC 7515 §2): no padding, nothing outside the alphabet,
/// canonical trailing bits.
@Suite struct Base64URLTests {
    /// RFC 4648 §10 test vectors, padding removed as RFC 7515 §2 requires.
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: rfc4648)
    func rfc4648Vectors(plain: String, encoded: String) throws {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded, what: "x") == Array(plain.utf8))
    }

    /// The two characters that differ from base64: 62 is '-', 63 is '_' (RFC 4648 Table 2).
    @Test func urlAlphabet() throws {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(try Base64URL.decode("-_-_", what: "x") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.encode([0xFF]) == "_w")
    }

    /// Random inputs of every length 0…300: our encoding equals Foundation's base64 with the
    /// alphabet swapped and padding dropped, and decodes back.
    @Test func matchesFoundation() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == foundation)
            #expect(try Base64URL.decode(foundation, what: "x") == bytes)
        }
    }

    static let refused: [(String, String)] = [
        ("Zg==", "padding"), ("Zm8=", "padding"), ("Zg=", "partial padding"), ("=", "padding only"),
        ("Zm9v+w", "base64 '+'"), ("Zm9v/w", "base64 '/'"),
        ("Zm 9v", "space"), ("Zm9v\n", "newline"), ("Zm9v\r\n", "CRLF"), ("Zm\t9v", "tab"),
        ("Zm9v?", "'?'"), ("Zm9v#", "'#'"), ("Zm9v.", "'.'"), ("Zm9vé", "non-ASCII"), ("Zm9v\u{0}", "NUL"),
        ("Z", "length 1 mod 4"), ("Zm9vY", "length 1 mod 4"),
        ("Zh", "non-zero trailing bits (one byte)"), ("Zm9", "non-zero trailing bits (two bytes)"),
        ("AB", "non-zero trailing bits (Wycheproof 374)"), ("_x", "non-zero trailing bits"),
    ]

    @Test(arguments: refused)
    func refusesNonCanonical(input: String, why: String) {
        #expect(throws: TokenError(.malformed, ""), "\(why)") { try Base64URL.decode(input, what: "segment") }
        guard case .failure = Base64URL.decode(Array(input.utf8)) else {
            Issue.record("\(why): accepted")
            return
        }
    }

    @Test func problemKinds() {
        #expect(Base64URL.decode(Array("Zg==".utf8)) == .failure(.invalidCharacter(0x3D, offset: 2)))
        #expect(Base64URL.decode(Array("Z".utf8)) == .failure(.invalidLength))
        #expect(Base64URL.decode(Array("Zh".utf8)) == .failure(.nonZeroTrailingBits))
        #expect(Base64URL.decode(Array("AA".utf8)) == .success([0]))
    }

    /// The same strictness applies inside tokens and JWKs.
    @Test func strictInTokensAndKeys() throws {
        let key = try JWK(hmacSecret: [UInt8](repeating: 7, count: 32))
        let token = try JWTSigner(key: key).sign(["sub": "a"] as ClaimSet)
        let parts = token.split(separator: ".").map(String.init)
        let verifier = try JWTVerifier(key: key)
        _ = try verifier.verify(token)
        let mutations = [
            [parts[0] + "=", parts[1], parts[2]],  // padding on the header
            [parts[0], parts[1] + "=", parts[2]],  // on the payload
            [parts[0], parts[1], parts[2] + "="],  // on the signature
            [parts[0], parts[1], "+" + parts[2].dropFirst()],  // base64, not base64url
            [parts[0], " " + parts[1], parts[2]],  // white space inside
        ]
        for m in mutations {
            #expect(throws: TokenError(.malformed, "")) { try verifier.verify(m.joined(separator: ".")) }
        }
        // A JWK member with a non-canonical last character is refused.
        #expect(throws: TokenError(.invalidKey, "")) {
            try JWK(json: #"{"kty":"oct","k":"-xxuDNsVZ2iJtos-akfXTSCt4UO2cruLCsbWlBingge"}"#)
        }
    }
}
