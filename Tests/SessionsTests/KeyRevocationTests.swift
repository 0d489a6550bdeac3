import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Key compromise and retirement windows, on every store.
@Suite struct KeyRevocationTests {
    @Test(arguments: StoreKind.available)
    func aRevokedKeyLeavesTheJWKSAndItsTokensStopVerifying(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let pair = try await Conformance.firstPair(sessions)
            let k1 = try #require(try UnverifiedToken(pair.accessToken).header?.keyID)
            _ = try await sessions.verifyAccessToken(pair.accessToken)

            let replacement = try #require(try await sessions.keyRing.revoke(keyID: k1))
            #expect(replacement.keyID != k1)
            #expect(try await sessions.keyRing.jwks().keys.compactMap(\.keyID) == [replacement.keyID])
            #expect(await Conformance.code { try await sessions.verifyAccessToken(pair.accessToken, checkSession: false) } == "key_not_found")
            // New tokens are signed by the replacement and verify.
            let next = try await sessions.refresh(pair.refreshToken)
            #expect(try UnverifiedToken(next.accessToken).header?.keyID == replacement.keyID)
            _ = try await sessions.verifyAccessToken(next.accessToken)
            let info = try #require(try await sessions.keyRing.keys().first { $0.keyID == k1 })
            #expect(info.revokedAt == clock.now && !info.isActive)
            #expect(await Conformance.code { try await sessions.keyRing.revoke(keyID: "no-such-kid") } == "invalid_input")
            // Revoking a retired key does not replace the active one.
            #expect(try await sessions.keyRing.revoke(keyID: k1) == nil)
            #expect(try await sessions.keyRing.keys().filter(\.isActive).map(\.keyID) == [replacement.keyID])
        }
    }

    /// A revocation by another process (another manager on the same store) reaches this one's
    /// cached published keys within `publishedKeysCacheSeconds`; with 0 at once.
    @Test(arguments: StoreKind.available)
    func aRevocationElsewhereReachesCachedVerifiersWithinTheirTTL(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            var config = SessionConfiguration.test(clock)
            config.publishedKeysCacheSeconds = 0.3
            let server = SessionManager(store: t.store, configuration: config)
            let operator_ = Conformance.manager(t.store, clock)
            _ = try await server.ensureUser(id: "carol")
            let pair = try await server.issueTokens(userID: "carol")
            let kid = try #require(try UnverifiedToken(pair.accessToken).header?.keyID)
            _ = try await server.verifyAccessToken(pair.accessToken)
            _ = try await server.verifyAccessToken(pair.accessToken)  // from the cache
            _ = try await operator_.keyRing.revoke(keyID: kid)
            try await Task.sleep(for: .milliseconds(400))
            #expect(await Conformance.code { try await server.verifyAccessToken(pair.accessToken, checkSession: false) } == "key_not_found")

            var uncached = config
            uncached.publishedKeysCacheSeconds = 0
            let other = SessionManager(store: t.store, configuration: uncached)
            let next = try await other.issueTokens(userID: "carol")
            _ = try await other.verifyAccessToken(next.accessToken)
            _ = try await operator_.keyRing.revoke(keyID: try #require(try UnverifiedToken(next.accessToken).header?.keyID))
            #expect(await Conformance.code { try await other.verifyAccessToken(next.accessToken, checkSession: false) } == "key_not_found")
        }
    }

    /// The retirement window is the lifetime the key signed with, not the rotating process's.
    @Test(arguments: StoreKind.available)
    func retirementUsesTheRecordedLifetime(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            var long = SessionConfiguration.test(clock)
            long.accessTokenLifetime = 7200
            let issuer = SessionManager(store: t.store, configuration: long)
            var short = SessionConfiguration.test(clock)
            short.accessTokenLifetime = 300
            let rotator = SessionManager(store: t.store, configuration: short)
            _ = try await issuer.ensureUser(id: "alice")
            let old = try await rotator.issueTokens(userID: "alice")  // key made with 300 s
            let pair = try await issuer.issueTokens(userID: "alice")  // same key, now used for 7200 s
            #expect(try UnverifiedToken(old.accessToken).header?.keyID == UnverifiedToken(pair.accessToken).header?.keyID)
            let rotatedAt = clock.now
            _ = try await rotator.keyRing.rotate()
            let retired = try #require(try await rotator.keyRing.keys().first { !$0.isActive })
            #expect(retired.publishUntil == rotatedAt + 7200 + 60)
            clock.advance(7000)  // past the rotator's own 300 s, within the token's 7200 s
            _ = try await rotator.verifyAccessToken(pair.accessToken)
        }
    }

    @Test(arguments: StoreKind.available)
    func cliKeysRevoke(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let s = ["--store", t.location, "--json"]
            let issue = try await CLITests.tokentool(["token", "issue", "--sub", "alice"] + s)
            #expect(issue.status == 0, "\(issue.stderr)")
            let at = try #require(try issue.json["access_token"]?.stringValue)
            let kid = try #require(try UnverifiedToken(at).header?.keyID)
            // --kid: a thumbprint may start with '-' (1 in 64), which a positional argument reads as an option.
            let revoke = try await CLITests.tokentool(["keys", "revoke", "--kid", kid] + s)
            #expect(revoke.status == 0, "\(revoke.stderr)")
            #expect(try revoke.json["revoked"]?.stringValue == kid)
            let introspect = try await CLITests.tokentool(["token", "introspect", at] + s)
            #expect(introspect.status == 1)
            #expect(try introspect.json["active"] == false)
            let unknown = try await CLITests.tokentool(["keys", "revoke", "no-such-kid"] + s)
            #expect(unknown.status == 2)
            #expect(unknown.errorCode == "invalid_input")
        }
    }
}
