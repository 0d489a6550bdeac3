import Foundation
import Testing
@testable import JOSE

/// RFC 7638 JWK thumbprints.
@Suite struct ThumbprintTests {
    /// RFC 7638 §3.1: the example RSA key (RFC 7517 Appendix A.1) and its thumbprint.
    static let rfc7638Key = #"""
        {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}
        """#

    @Test func rfc7638Example() throws {
        let key = try JWK(json: Self.rfc7638Key)
        #expect(try key.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    /// RFC 8037 Appendix A.3: the Ed25519 example key's thumbprint.
    @Test func rfc8037Example() throws {
        let key = try JWK(json: #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#)
        #expect(try key.thumbprint() == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k")
    }

    /// Only the required members count: metadata and private members change nothing.
    @Test func independentOfMetadataAndPrivateHalf() throws {
        let plain = try JWK(
            json:
                #"{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB"}"#
        )
        #expect(try plain.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        let priv = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_2.ec_private_key.json"))
        let pub = try JWK(json: TestVectors.text("jose-cookbook/jwk/3_1.ec_public_key.json"))
        #expect(try priv.thumbprint() == pub.thumbprint())
    }

    /// Thumbprints of the openssl-made fixtures, as computed by joserfc.
    @Test func agreesWithJoserfc() throws {
        let expected = try TestVectors.json("pem/expected.json")
        for name in ["rsa2048", "ecp256", "ecp384", "ecp521", "ed25519"] {
            #expect(try JWK(pem: TestVectors.text("pem/\(name).pkcs8.pem")).thumbprint() == expected[name]["thumbprint"].string)
        }
    }

    /// oct: {"k","kty"} (RFC 7638 §3.2), checked against a hand-built canonical form.
    @Test func octCanonicalForm() throws {
        let k = Base64URL.encode([UInt8](repeating: 0xAB, count: 32))
        let key = try JWK(json: #"{"kty":"oct","kid":"x","k":"\#(k)"}"#)
        let canonical = #"{"k":"\#(k)","kty":"oct"}"#
        #expect(try key.thumbprint() == Base64URL.encode(SHA2.sha256(Array(canonical.utf8))))
    }
}
