import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Token pairs: the access token's RFC 9068 shape and the refresh token's form, on every store.
@Suite struct TokenPairTests {
    @Test(arguments: StoreKind.available)
    func accessTokenFollowsRFC9068(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let pair = try await Conformance.firstPair(sessions)

            // Verified with a plain JOSE verifier over the published JWKS, not our own verifier.
            let jwks = try JWKSet(json: try await sessions.keyRing.jwks().jsonString())
            let verifier = JWTVerifier(
                keys: jwks,
                options: VerifierOptions(
                    issuers: ["https://auth.test"], audiences: ["https://api.test"], type: "at+jwt", clock: clock.tokenClock))
            let token = try verifier.verify(pair.accessToken)
            #expect(token.header.type == "at+jwt")  // RFC 9068 §2.1
            #expect(token.header.algorithm == .es256)
            let c = token.claims
            #expect(c.issuer == "https://auth.test")
            #expect(c.subject == "alice")
            #expect(c.audience == ["https://api.test"])
            #expect(c["iat"]?.intValue == clock.now)
            #expect(c["exp"]?.intValue == clock.now + 1800)  // 30 minutes by default
            #expect(c["client_id"]?.stringValue == "ios-app")
            #expect(c["sid"]?.stringValue == pair.sessionID)
            #expect((c.jwtID ?? "").count >= 22)
            #expect(pair.expiresIn == 1800 && pair.tokenType == "Bearer" && pair.userID == "alice")

            // Refresh token: 256 bits, base64url without padding.
            #expect(pair.refreshToken.count == 43)
            let raw = try Base64URL.decode(pair.refreshToken, what: "refresh token")
            #expect(raw.count == 32)
            // Two pairs never share a token or a jti.
            let other = try await sessions.issueTokens(userID: "alice")
            #expect(other.refreshToken != pair.refreshToken && other.sessionID != pair.sessionID)
        }
    }

    @Test(arguments: StoreKind.available)
    func storeKeepsOnlyTheHashOfRefreshTokens(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let first = try await Conformance.firstPair(sessions)
            let second = try await sessions.refresh(first.refreshToken)
            let spent = try #require(try await Conformance.record(t.store, of: first.refreshToken))
            // The stored key is SHA-256 of the token (checked against an independent digest below).
            #expect(spent.hash != first.refreshToken)
            #expect(spent.sealedSuccessor.map { !$0.contains(second.refreshToken) } ?? false)
            #expect(spent.successorHash == Base64URL.encode(SHA2.sha256(Array(second.refreshToken.utf8))))
            if kind == .sqlite {
                // Neither token appears anywhere in the database files.
                for suffix in ["", "-wal"] {
                    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: t.location + suffix))) ?? Data()
                    for token in [first.refreshToken, second.refreshToken] {
                        #expect(bytes.range(of: Data(token.utf8)) == nil)
                    }
                }
            }
        }
    }

    /// A refresh token that began with "-" would read as an option on a command line
    /// (`tokentool token refresh -x…` fails as a usage error); one random token in 64 would.
    @Test func refreshTokensNeverStartWithADash() throws {
        var firsts = Set<Character>()
        for _ in 0..<10_000 {
            let token = try RefreshToken.generate()
            #expect(RefreshToken.looksLikeRefreshToken(token))
            firsts.insert(token.first!)
        }
        #expect(!firsts.contains("-"))
        #expect(firsts.count == 63, "every other base64url character still starts some token")
    }

    @Test func sha256MatchesAnIndependentDigest() {
        // FIPS 180-2 test vector "abc": ba7816bf…15ad, base64url of those bytes.
        #expect(RefreshToken.hash("abc") == "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0")
    }
}
