import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The one way of sealing at rest (`Sealer`, docs/stores.md "Sealed values"): its associated data
/// rule, and the boxes sealed before it (each written here byte for byte as the code wrote them
/// then: a signing key, a provider token, a refresh token's successor) still opening, on every store.
@Suite struct SealerTests {
    static let master = [UInt8](repeating: 0x42, count: 32)

    /// A box as the code before the one rule wrote it: base64url(AES-256-GCM(plaintext)) with `aad`.
    static func earlierBox(_ plaintext: String, key: [UInt8], aad: String) throws -> String {
        Base64URL.encode(try AESGCM.seal(Array(plaintext.utf8), key: key, authenticating: Array(aad.utf8)))
    }

    @Test func theRuleBindsPurposeAndContext() throws {
        #expect(
            Sealer.aad(purpose: .providerToken, context: ["oauth2-apple", "s1"])
                == Array("tokentool seal v1\u{0}provider-token\u{0}oauth2-apple\u{0}s1".utf8))
        let box = try Sealer.seal(Array("secret".utf8), key: Self.master, purpose: .providerToken, context: ["oauth2-apple", "s1"])
        #expect(try Sealer.open(box, key: Self.master, purpose: .providerToken, context: ["oauth2-apple", "s1"]) == Array("secret".utf8))
        // The box is the rule's: the earlier associated data does not open it.
        #expect(
            (try? AESGCM.open(try Base64URL.decode(box, what: "box"), key: Self.master, authenticating: Array("oauth2-apple\u{0}s1".utf8))) == nil)
        // Another row, another purpose, another key: nothing opens.
        #expect(try Sealer.open(box, key: Self.master, purpose: .providerToken, context: ["oauth2-apple", "s2"]) == nil)
        #expect(try Sealer.open(box, key: Self.master, purpose: .signingKey, context: ["oauth2-apple\u{0}s1"]) == nil)
        #expect(try Sealer.open(box, key: [UInt8](repeating: 0x43, count: 32), purpose: .providerToken, context: ["oauth2-apple", "s1"]) == nil)
        // A NUL in a field would make the joined fields ambiguous.
        #expect(throws: TokenError(.invalidInput, "")) {
            try Sealer.seal([1], key: Self.master, purpose: .providerToken, context: ["oauth2-apple\u{0}s1", ""])
        }
        #expect(throws: TokenError.self) { try Sealer.open("not base64url!", key: Self.master, purpose: .signingKey, context: ["k"]) }
    }

    /// Each purpose's earlier form opens for its own purpose and row only.
    @Test func earlierBoxesOpenForTheirPurposeOnly() throws {
        let key = try Self.earlierBox("{}", key: Self.master, aad: "kid-1")
        #expect(try Sealer.open(key, key: Self.master, purpose: .signingKey, context: ["kid-1"]) == Array("{}".utf8))
        #expect(try Sealer.open(key, key: Self.master, purpose: .signingKey, context: ["kid-2"]) == nil)
        let token = try Self.earlierBox("r.abc", key: Self.master, aad: "oauth2-apple\u{0}s1")
        #expect(try Sealer.open(token, key: Self.master, purpose: .providerToken, context: ["oauth2-apple", "s1"]) == Array("r.abc".utf8))
        #expect(try Sealer.open(token, key: Self.master, purpose: .signingKey, context: ["oauth2-apple", "s1"]) == nil)
        let successor = try Self.earlierBox("next", key: Self.master, aad: "sid.hash")
        #expect(try Sealer.open(successor, key: Self.master, purpose: .refreshSuccessor, context: ["sid", "hash"]) == Array("next".utf8))
        #expect(try Sealer.open(successor, key: Self.master, purpose: .providerToken, context: ["sid", "hash"]) == nil)
    }

    /// A signing key sealed as KeyRing sealed it (associated data: the kid) still signs.
    @Test(arguments: StoreKind.available)
    func aSigningKeySealedBeforeStillSigns(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            var key = try JWK.generate(curve: .p256)
            key.algorithm = "ES256"
            key.use = "sig"
            let kid = try key.thumbprint()
            key.keyID = kid
            let record = SigningKeyRecord(
                keyID: kid, algorithm: "ES256", publicJWK: try key.publicKey.jsonString(),
                privateJWK: try Self.earlierBox(try key.jsonString(includePrivate: true), key: Self.master, aad: kid),
                sealed: true, createdAt: clock.now, accessTokenLifetime: 1800)
            #expect(try await t.store.transaction { tx in try await tx.insertSigningKey(record) })

            var config = SessionConfiguration.test(clock)
            config.masterKey = Self.master
            let sessions = SessionManager(store: t.store, configuration: config)
            let pair = try await Conformance.firstPair(sessions)
            #expect(try UnverifiedToken(pair.accessToken).header?.keyID == kid)
            #expect(try await sessions.verifyAccessToken(pair.accessToken).subject == "alice")
            // A key sealed now follows the rule.
            let next = try await sessions.keyRing.rotate()
            let stored = try #require(try await t.store.transaction { tx in try await tx.activeSigningKey() })
            #expect(stored.keyID == next.keyID)
            let box = try Base64URL.decode(stored.privateJWK, what: "box")
            #expect((try? AESGCM.open(box, key: Self.master, authenticating: Array(next.keyID.utf8))) == nil)
            #expect(try Sealer.open(stored.privateJWK, key: Self.master, purpose: .signingKey, context: [next.keyID]) != nil)
        }
    }

    /// A provider token sealed as `keepProviderToken` sealed it (provider NUL subject) still opens.
    @Test(arguments: StoreKind.available)
    func aProviderTokenSealedBeforeStillOpens(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            var config = SessionConfiguration.test(TestClock())
            config.masterKey = Self.master
            let sessions = SessionManager(store: t.store, configuration: config)
            let signIn = try await sessions.signIn(with: Conformance.identity("oauth2-apple", "apple-sub-1"))
            let kept = #"{"client_id":"com.example.app","token":"r.abc"}"#
            let sealed = try Self.earlierBox(kept, key: Self.master, aad: "oauth2-apple\u{0}apple-sub-1")
            try await t.store.transaction { tx in
                try await tx.setSealedProviderToken(app: "", provider: "oauth2-apple", subject: "apple-sub-1", sealed: sealed)
            }
            let tokens = try await sessions.providerTokens(of: signIn.userID)
            #expect(tokens.map(\.provider) == ["oauth2-apple"] && tokens.map(\.token) == [kept])
            // Kept again now, by the rule; it reads back the same.
            try await sessions.keepProviderToken("r.def", provider: "oauth2-apple", subject: "apple-sub-1")
            #expect(try await sessions.providerTokens(of: signIn.userID).map(\.token) == ["r.def"])
        }
    }

    /// A refresh token's successor sealed as rotation sealed it (key HMAC-SHA256(predecessor,
    /// label), associated data "session id.hash of the predecessor") still comes back within the grace.
    @Test(arguments: StoreKind.available)
    func aSuccessorSealedBeforeStillComesBackWithinTheGrace(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock, grace: 10)
            let first = try await Conformance.firstPair(sessions)
            let second = try await sessions.refresh(first.refreshToken)
            let predecessorHash = Base64URL.encode(SHA2.sha256(Array(first.refreshToken.utf8)))
            let key = try HMAC.sha256(key: Array(first.refreshToken.utf8), data: Array("tokentool refresh-token grace seal v1".utf8))
            let earlier = try Self.earlierBox(second.refreshToken, key: key, aad: "\(first.sessionID).\(predecessorHash)")
            try await t.executeRaw("UPDATE refresh_tokens SET sealed_successor = '\(earlier)' WHERE hash = '\(predecessorHash)'")
            #expect(try await Conformance.record(t.store, of: first.refreshToken)?.sealedSuccessor == earlier)

            clock.advance(5)
            let again = try await sessions.refresh(first.refreshToken)
            #expect(again.refreshToken == second.refreshToken && again.sessionID == first.sessionID)
            #expect(try await Conformance.session(t.store, id: first.sessionID)?.revokedAt == nil)
        }
    }
}
