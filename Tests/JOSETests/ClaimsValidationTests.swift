import Foundation
import Testing
@testable import JOSE

/// Claim validation against an injected clock.
@Suite struct ClaimsValidationTests {
    static let now: Int64 = 1_800_000_000
    static let key = try! JWK(hmacSecret: [UInt8](repeating: 0x17, count: 32))

    static func token(_ claims: ClaimSet, type: String? = "JWT") throws -> String {
        var signer = try JWTSigner(key: key)
        signer.type = type
        return try signer.sign(claims)
    }

    static func verify(_ claims: ClaimSet, type: String? = "JWT", at time: Int64 = now, _ configure: (inout VerifierOptions) -> Void = { _ in })
        throws -> VerifiedToken<ClaimSet>
    {
        var options = VerifierOptions(clock: .fixed(unixSeconds: time))
        configure(&options)
        return try JWTVerifier(key: key, options: options).verify(token(claims, type: type))
    }

    // MARK: exp / nbf / iat

    @Test func expEqualToNowIsExpired() throws {
        // RFC 7519 §4.1.4: "on or after" exp the token MUST NOT be accepted.
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try Self.verify(["exp": .int(Self.now)]) }
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try Self.verify(["exp": .int(Self.now - 1)]) }
        _ = try Self.verify(["exp": .int(Self.now + 1)])
        // Fractional NumericDates are allowed (RFC 7519 §2).
        _ = try Self.verify(["exp": .double(Double(Self.now) + 0.5)])
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try Self.verify(["exp": .double(Double(Self.now) - 0.5)]) }
    }

    @Test func nbfEqualToNowIsValid() throws {
        // RFC 7519 §4.1.5: not accepted *before* nbf.
        _ = try Self.verify(["nbf": .int(Self.now)])
        _ = try Self.verify(["nbf": .int(Self.now - 100)])
        #expect(throws: TokenError(.notYetValid, "", claim: "nbf")) { try Self.verify(["nbf": .int(Self.now + 1)]) }
    }

    @Test func iatInTheFuture() throws {
        _ = try Self.verify(["iat": .int(Self.now)])
        _ = try Self.verify(["iat": .int(Self.now - 3600)])
        #expect(throws: TokenError(.invalidClaim, "", claim: "iat")) { try Self.verify(["iat": .int(Self.now + 1)]) }
        // Within the leeway it is tolerated; beyond it, refused.
        _ = try Self.verify(["iat": .int(Self.now + 30)]) { $0.leeway = 30 }
        #expect(throws: TokenError(.invalidClaim, "", claim: "iat")) { try Self.verify(["iat": .int(Self.now + 31)]) { $0.leeway = 30 } }
    }

    @Test func leeway() throws {
        // exp: accepted while now < exp + leeway.
        _ = try Self.verify(["exp": .int(Self.now - 59)]) { $0.leeway = 60 }
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try Self.verify(["exp": .int(Self.now - 60)]) { $0.leeway = 60 } }
        // nbf: accepted once now + leeway >= nbf.
        _ = try Self.verify(["nbf": .int(Self.now + 60)]) { $0.leeway = 60 }
        #expect(throws: TokenError(.notYetValid, "", claim: "nbf")) { try Self.verify(["nbf": .int(Self.now + 61)]) { $0.leeway = 60 } }
        // A negative leeway never tightens (nor loosens) the rules.
        _ = try Self.verify(["exp": .int(Self.now + 1), "nbf": .int(Self.now)]) { $0.leeway = -10 }
    }

    @Test func clockIsInjected() throws {
        let claims: ClaimSet = ["exp": .int(Self.now + 10)]
        _ = try Self.verify(claims, at: Self.now + 9)
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try Self.verify(claims, at: Self.now + 10) }
        // The system clock: a token of 2027 expired long ago… or not yet, depending on today; use far dates.
        let verifier = try JWTVerifier(key: Self.key)
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try verifier.verify(Self.token(["exp": 1_000_000_000])) }
        _ = try verifier.verify(Self.token(["exp": 32_503_680_000]))  // year 3000
    }

    static let wrongTypes: [JSONValue] = ["1800000000", true, nil, [1_800_000_000], .object(["t": 1])]

    @Test(arguments: ["exp", "nbf", "iat"], wrongTypes)
    func numericDateOfWrongType(claim: String, value: JSONValue) throws {
        #expect(throws: TokenError(.invalidClaim, "", claim: claim)) { try Self.verify([claim: value]) }
    }

    // MARK: iss / aud / typ / required

    @Test func issuer() throws {
        let issuers: Set<String> = ["https://a.example", "https://b.example"]
        _ = try Self.verify(["iss": "https://b.example"]) { $0.issuers = issuers }
        // Exact match only: no trailing slash, case or prefix games.
        for wrong in ["https://b.example/", "HTTPS://B.EXAMPLE", "https://b.example.evil", "https://b", ""] {
            #expect(throws: TokenError(.invalidIssuer, "", claim: "iss"), "\(wrong)") {
                try Self.verify(["iss": .string(wrong)]) { $0.issuers = issuers }
            }
        }
        #expect(throws: TokenError(.invalidIssuer, "", claim: "iss")) { try Self.verify(["iss": ["https://a.example"]]) { $0.issuers = issuers } }
        #expect(throws: TokenError(.missingClaim, "", claim: "iss")) { try Self.verify(["sub": "x"]) { $0.issuers = issuers } }
        // Not configured: not checked.
        _ = try Self.verify(["iss": "anything"])
    }

    @Test func audience() throws {
        let audiences: Set<String> = ["api", "web"]
        _ = try Self.verify(["aud": "web"]) { $0.audiences = audiences }
        _ = try Self.verify(["aud": ["other", "api"]]) { $0.audiences = audiences }
        #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try Self.verify(["aud": "Web"]) { $0.audiences = audiences } }
        #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try Self.verify(["aud": ["other", "apis"]]) { $0.audiences = audiences } }
        #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try Self.verify(["aud": []]) { $0.audiences = audiences } }
        #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try Self.verify(["aud": ["api", 1]]) { $0.audiences = audiences } }
        #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try Self.verify(["aud": 5]) { $0.audiences = audiences } }
        #expect(throws: TokenError(.missingClaim, "", claim: "aud")) { try Self.verify(["sub": "x"]) { $0.audiences = audiences } }
        // The typed accessor reads both forms.
        #expect(try Self.verify(["aud": ["x", "y"]]).claims.audience == ["x", "y"])
        #expect(try Self.verify(["aud": "x"]).claims.audience == ["x"])
    }

    @Test func type() throws {
        _ = try Self.verify(["sub": "x"], type: "JWT") { $0.type = "JWT" }
        // RFC 8725 §3.11 / RFC 7515 §4.1.9: compared case-insensitively, "application/" optional.
        _ = try Self.verify(["sub": "x"], type: "at+jwt") { $0.type = "at+JWT" }
        _ = try Self.verify(["sub": "x"], type: "application/at+jwt") { $0.type = "at+jwt" }
        #expect(throws: TokenError(.invalidClaim, "", claim: "typ")) { try Self.verify(["sub": "x"], type: "JWT") { $0.type = "at+jwt" } }
        #expect(throws: TokenError(.invalidClaim, "", claim: "typ")) { try Self.verify(["sub": "x"], type: nil) { $0.type = "JWT" } }
        // Not asked: any typ (or none) passes.
        _ = try Self.verify(["sub": "x"], type: "whatever")
        _ = try Self.verify(["sub": "x"], type: nil)
    }

    @Test func requiredClaims() throws {
        _ = try Self.verify(["sub": "x", "exp": .int(Self.now + 5), "jti": nil]) { $0.requiredClaims = ["sub", "exp", "jti"] }
        #expect(throws: TokenError(.missingClaim, "", claim: "exp")) { try Self.verify(["sub": "x"]) { $0.requiredClaims = ["sub", "exp"] } }
        #expect(throws: TokenError(.missingClaim, "", claim: "sub")) { try Self.verify(["exp": .int(Self.now + 5)]) { $0.requiredClaims = ["sub"] } }
    }

    /// Claims are only validated after the signature: a forged token with good claims is still refused.
    @Test func signatureBeforeClaims() throws {
        let good = try Self.token(["exp": .int(Self.now - 10)])
        let other = try JWK(hmacSecret: [UInt8](repeating: 0x18, count: 32))
        #expect(throws: TokenError(.invalidSignature, "")) {
            try JWTVerifier(key: other, options: VerifierOptions(clock: .fixed(unixSeconds: Self.now))).verify(good)
        }
        // verifySignature checks no claim at all.
        _ = try JWTVerifier(key: Self.key, options: VerifierOptions(clock: .fixed(unixSeconds: Self.now))).verifySignature(good)
    }

    @Test func claimSetAccessors() throws {
        var claims = ClaimSet()
        claims.issuer = "i"
        claims.subject = "s"
        claims.jwtID = "j"
        claims.audience = ["a", "b"]
        claims.expiresAt = Date(timeIntervalSince1970: Double(Self.now + 60) + 0.9)
        claims.notBefore = Date(timeIntervalSince1970: Double(Self.now))
        claims.issuedAt = Date(timeIntervalSince1970: Double(Self.now))
        let verified = try Self.verify(claims).claims
        #expect(verified["exp"] == .int(Self.now + 60))  // whole seconds, rounded down
        #expect(verified.issuer == "i" && verified.subject == "s" && verified.jwtID == "j" && verified.audience == ["a", "b"])
        #expect(verified.expiresAt == Date(timeIntervalSince1970: Double(Self.now + 60)))
        #expect(verified.object.keys == ["iss", "sub", "jti", "aud", "exp", "nbf", "iat"])
    }
}
