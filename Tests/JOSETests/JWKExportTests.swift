import Foundation
import Testing
@testable import JOSE

/// Export to JWK and PEM, and back.
@Suite struct JWKExportTests {
    static func generated() throws -> [JWK] {
        [
            try JWK.generateRSA(bits: 2048), try JWK.generate(curve: .p256), try JWK.generate(curve: .p384),
            try JWK.generate(curve: .p521), try JWK.generate(curve: .ed25519), try JWK.generateSecret(bytes: 64),
        ]
    }

    @Test func jwkRoundTrip() throws {
        for var key in try Self.generated() {
            key.keyID = "k-\(key.keyType.rawValue)"
            key.use = "sig"
            let privateJSON = try key.jsonString(includePrivate: true)
            let back = try JWK(json: privateJSON)
            #expect(back.isPrivate && back.keyType == key.keyType && back.curve == key.curve && back.bits == key.bits)
            #expect(back.keyID == key.keyID && back.use == "sig")
            #expect(try back.thumbprint() == key.thumbprint())
            // The re-imported private key signs what the original public key verifies.
            let token = try JWTSigner(key: back).sign(["sub": "rt"] as ClaimSet)
            #expect(try JWTVerifier(key: key.publicKey).verify(token).claims.subject == "rt")
            #expect(try JSONValue(parsing: back.jsonString(includePrivate: true)) == JSONValue(parsing: privateJSON))
        }
    }

    @Test func publicExportHasNoPrivateMembers() throws {
        for key in try Self.generated() where key.keyType != .oct {
            let o = try key.jsonObject(includePrivate: false)
            for member in ["d", "p", "q", "dp", "dq", "qi", "k"] { #expect(o[member] == nil, "\(key.keyType) exports \(member)") }
            let pub = try JWK(json: key.jsonString())
            #expect(!pub.isPrivate)
            #expect(try pub.thumbprint() == key.thumbprint())
            #expect(try key.publicKey.jsonString() == key.jsonString())
            #expect(throws: TokenError(.invalidKey, "")) { try JWTSigner(key: pub) }
        }
        // A secret has no public form.
        #expect(throws: TokenError(.invalidKey, "")) { try JWK.generateSecret().jsonObject(includePrivate: false) }
    }

    /// RFC 7518 §6.2.1.2: EC coordinates are always full width, even with leading zeros.
    @Test func ecCoordinatesFullWidth() throws {
        for curve in [JWK.Curve.p256, .p384, .p521] {
            for _ in 0..<8 {
                let o = try JWK.generate(curve: curve).jsonObject(includePrivate: true)
                for member in ["x", "y", "d"] {
                    #expect(try Base64URL.decode(o[member]!.stringValue!, what: member).count == curve.coordinateSize)
                }
            }
        }
    }

    @Test func pemRoundTrip() throws {
        for key in try Self.generated() where key.keyType != .oct {
            let privatePEM = try key.pem()
            #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
            let publicPEM = try key.pem(includePrivate: false)
            #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
            let back = try JWK(pem: privatePEM)
            #expect(back.isPrivate)
            #expect(try back.thumbprint() == key.thumbprint())
            #expect(try JWK(pem: publicPEM).thumbprint() == key.thumbprint())
            #expect(try JWK(der: key.publicKeyDER()).thumbprint() == key.thumbprint())
        }
        #expect(throws: TokenError(.invalidKey, "")) { try JWK.generateSecret().pem() }
    }

    /// Published keys (RFC 7520 §3) export exactly their published members.
    @Test func fixtureExportMatchesJoserfc() throws {
        let expected = try TestVectors.json("pem/expected.json")
        for name in ["rsa2048", "ecp256", "ecp384", "ecp521", "ed25519"] {
            let key = try JWK(pem: TestVectors.text("pem/\(name).spki.pem"))
            let o = try key.jsonObject()
            let want = expected[name]["jwk"]
            var members = Set(o.keys)
            members.remove("kid")
            #expect(members == Set(["kty", "crv", "x", "y", "n", "e"].filter { !want[$0].isNull }))
            for m in members { #expect(o[m]?.stringValue == want[m].string) }
        }
    }

    /// The key owns a private copy of a secret: dropping the key (which cleanses its copy)
    /// must leave the caller's bytes, and bytes exported earlier, untouched.
    @Test func secretsAreNotAliased() throws {
        let secret = [UInt8](repeating: 7, count: 32)
        var exported: [UInt8] = []
        do {
            let key = try JWK(hmacSecret: secret)
            exported = try key.keyMembers(includePrivate: true)[0].1
        }
        #expect(secret == [UInt8](repeating: 7, count: 32))
        #expect(exported == secret)
    }

    @Test func metadataKept() throws {
        let json =
            #"{"kty":"EC","kid":"a","use":"sig","alg":"ES256","key_ops":["verify"],"crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","x5t":"abc"}"#
        let key = try JWK(json: json)
        #expect(key.keyID == "a" && key.use == "sig" && key.algorithm == "ES256" && key.keyOperations == ["verify"])
        #expect(key.extraMembers["x5t"] == "abc")
        let o = try key.jsonObject()
        #expect(o["x5t"] == "abc" && o["alg"] == "ES256" && o["key_ops"] == ["verify"])
        #expect(try JSONValue(parsing: key.jsonString()) == JSONValue(parsing: json))
    }
}
