import Foundation
import JOSE
import Synchronization
import Testing

/// The verified-token cache: hits re-check only exp/nbf, failures are never cached, a change of
/// options empties it, and it stays within its bounds.
@Suite struct VerifiedTokenCacheTests {
    /// A clock the test moves.
    final class MovableClock: Sendable {
        let seconds: Mutex<Int64>
        init(_ t: Int64) { seconds = Mutex(t) }
        func set(_ t: Int64) { seconds.withLock { $0 = t } }
        var clock: TokenClock { TokenClock { [self] in Date(timeIntervalSince1970: Double(self.seconds.withLock { $0 })) } }
    }

    static let t0: Int64 = 1_800_000_000
    let key: JWK
    let signer: JWTSigner

    init() throws {
        var k = try JWK.generate(curve: .p256)
        k.keyID = "cache-test"
        key = k
        signer = try JWTSigner(key: key)
    }

    func token(sub: String, exp: Int64? = t0 + 60, nbf: Int64? = nil, aud: String = "api") throws -> String {
        var c = ClaimSet()
        c["sub"] = .string(sub)
        c["aud"] = .string(aud)
        if let exp { c["exp"] = .int(exp) }
        if let nbf { c["nbf"] = .int(nbf) }
        return try signer.sign(c)
    }

    func verifier(_ clock: MovableClock, limits: VerifiedTokenCacheLimits = VerifiedTokenCacheLimits()) throws -> JWTVerifier {
        try JWTVerifier(key: key.publicKey, options: VerifierOptions(audiences: ["api"], clock: clock.clock), cache: limits)
    }

    @Test func aSecondVerificationIsAHitWithTheSameClaims() throws {
        let clock = MovableClock(Self.t0)
        let v = try verifier(clock)
        let jwt = try token(sub: "alice")
        let first = try v.verify(jwt)
        let second = try v.verify(jwt)
        #expect(first.claims.subject == "alice")
        #expect(second.claims.subject == "alice")
        #expect(second.keyID == "cache-test")
        #expect(v.cache?.statistics.hits == 1)
        #expect(v.cache?.statistics.misses == 1)
        struct Sub: Decodable, Sendable { let sub: String }
        #expect(try v.verify(jwt, as: Sub.self).claims.sub == "alice")
        #expect(v.cache?.statistics.hits == 2)
    }

    @Test func aCachedTokenPastItsExpIsRefusedAsExpiredAndLeaves() throws {
        let clock = MovableClock(Self.t0)
        let v = try verifier(clock)
        let jwt = try token(sub: "bob", exp: Self.t0 + 60)
        _ = try v.verify(jwt)
        #expect(v.cache?.count == 1)
        clock.set(Self.t0 + 60)  // RFC 7519 §4.1.4: not accepted on or after exp
        #expect(throws: TokenError(.expired, "", claim: "exp")) { try v.verify(jwt) }
        #expect(v.cache?.count == 0)
    }

    @Test func aClockBeforeNbfIsAMissAndRefused() throws {
        let clock = MovableClock(Self.t0)
        let v = try verifier(clock)
        let jwt = try token(sub: "carol", nbf: Self.t0 - 10)
        _ = try v.verify(jwt)
        clock.set(Self.t0 - 100)
        #expect(throws: TokenError(.notYetValid, "", claim: "nbf")) { try v.verify(jwt) }
    }

    @Test func failuresAreNeverCached() throws {
        let clock = MovableClock(Self.t0)
        let v = try verifier(clock)
        let jwt = try token(sub: "dave")
        // Change a character in the middle of the signature: the last one may carry only padding
        // bits, and a change there is malformed base64url rather than a wrong signature.
        var chars = Array(jwt)
        let i = chars.count - 10
        chars[i] = chars[i] == "A" ? "B" : "A"
        let tampered = String(chars)
        #expect(throws: TokenError(.invalidSignature, "")) { try v.verify(tampered) }
        #expect(throws: TokenError(.invalidSignature, "")) { try v.verify(tampered) }
        let wrongAudience = try token(sub: "dave", aud: "other")
        #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try v.verify(wrongAudience) }
        #expect(v.cache?.count == 0)
        #expect(v.cache?.statistics.hits == 0)
    }

    @Test func changingTheOptionsEmptiesTheCache() throws {
        let clock = MovableClock(Self.t0)
        var v = try verifier(clock)
        let jwt = try token(sub: "erin")
        _ = try v.verify(jwt)
        let before = v.cache
        v.options.audiences = ["another-api"]
        #expect(v.cache !== before)
        #expect(v.cache?.count == 0)
        // The cached success under the old audience must not answer under the new one.
        #expect(throws: TokenError(.invalidAudience, "", claim: "aud")) { try v.verify(jwt) }
    }

    @Test func theCacheStaysWithinItsEntryAndByteBounds() throws {
        let clock = MovableClock(Self.t0)
        let v = try verifier(clock, limits: VerifiedTokenCacheLimits(maxEntries: 3))
        let tokens = try (0..<10).map { try token(sub: "user-\($0)") }
        for t in tokens { _ = try v.verify(t) }
        #expect(v.cache?.count == 3)
        _ = try v.verify(tokens[9])  // the newest stays
        #expect(v.cache?.statistics.hits == 1)

        let small = try verifier(clock, limits: VerifiedTokenCacheLimits(maxEntries: 100, maxBytes: 2 * tokens[0].utf8.count * 2))
        for t in tokens { _ = try small.verify(t) }
        #expect(small.cache?.count == 2)
    }

    @Test func aVerifierWithoutLimitsHasNoCache() throws {
        let v = try JWTVerifier(key: key.publicKey)
        #expect(v.cache == nil)
    }
}
