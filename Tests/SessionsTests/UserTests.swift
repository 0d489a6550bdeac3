import Foundation
import Identity
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Users and identities, on every store.
@Suite struct UserTests {
    @Test(arguments: StoreKind.available)
    func signInFindsOrCreatesTheUser(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            let google = Conformance.identity("google", "1234567890", email: "a@example.com")
            let first = try await sessions.signIn(with: google)
            #expect(first.created)
            let again = try await sessions.signIn(with: google)
            #expect(!again.created && again.userID == first.userID)
            #expect(again.tokens.sessionID != first.tokens.sessionID)  // one session per sign-in
            let other = try await sessions.signIn(with: Conformance.identity("apple", "1234567890"))
            #expect(other.created && other.userID != first.userID)  // (provider, subject), not subject alone
            let stored = try #require(try await t.store.transaction { tx in try await tx.identity(provider: "google", subject: "1234567890") })
            #expect(stored.email == "a@example.com" && stored.emailVerified && stored.userID == first.userID)
        }
    }

    @Test(arguments: StoreKind.available)
    func concurrentFirstSignInsCreateOneUser(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            let identity = Conformance.identity("apple", "001234.abcd")
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 { group.addTask { try await sessions.signIn(with: identity).userID } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func linkingAndListing(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let alice = try await sessions.signIn(with: Conformance.identity("google", "g-alice")).userID
            let bob = try await sessions.signIn(with: Conformance.identity("google", "g-bob")).userID
            clock.advance(1)
            try await sessions.link(Conformance.identity("apple", "a-alice"), to: alice)
            try await sessions.link(Conformance.identity("apple", "a-alice"), to: alice)  // idempotent
            #expect(await Conformance.code { try await sessions.link(Conformance.identity("google", "g-bob"), to: alice) } == "identity_in_use")
            #expect(await Conformance.code { try await sessions.link(Conformance.identity("facebook", "f"), to: "nobody") } == "user_not_found")
            let list = try await sessions.identities(of: alice)
            #expect(list.map { "\($0.provider)/\($0.subject)" } == ["google/g-alice", "apple/a-alice"])
            // Signing in with the linked identity finds alice.
            #expect(try await sessions.signIn(with: Conformance.identity("apple", "a-alice")).userID == alice)
            #expect(try await sessions.identities(of: bob).count == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func deletingAUserLeavesOtherUsersUntouched(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let a = try await sessions.signIn(with: Conformance.identity("google", "ga"))
            try await sessions.link(Conformance.identity("apple", "aa"), to: a.userID)
            let a2 = try await sessions.issueTokens(userID: a.userID)
            let a3 = try await sessions.refresh(a2.refreshToken)
            let b = try await sessions.signIn(with: Conformance.identity("google", "gb"))
            let bNext = try await sessions.refresh(b.tokens.refreshToken)
            let keysBefore = try await sessions.keyRing.keys()

            try await sessions.deleteUser(id: a.userID)

            #expect(try await sessions.user(id: a.userID) == nil)
            #expect(try await sessions.identities(of: a.userID).isEmpty)
            #expect(try await sessions.sessions(of: a.userID).isEmpty)
            for token in [a.tokens.refreshToken, a2.refreshToken, a3.refreshToken] {
                #expect(try await Conformance.record(t.store, of: token) == nil)
                #expect(await Conformance.code { try await sessions.refresh(token) } == "invalid_refresh_token")
            }
            #expect(await Conformance.code { try await sessions.verifyAccessToken(a3.accessToken) } == "session_revoked")
            // B: user, identity, session, tokens, and the key ring, all as before.
            #expect(try await sessions.user(id: b.userID) != nil)
            #expect(try await sessions.identities(of: b.userID).map(\.subject) == ["gb"])
            #expect(try await Conformance.record(t.store, of: b.tokens.refreshToken)?.usedAt != nil)
            _ = try await sessions.refresh(bNext.refreshToken)
            #expect(try await sessions.keyRing.keys() == keysBefore)
            // The identity is free again: signing in with it creates a new user.
            let back = try await sessions.signIn(with: Conformance.identity("google", "ga"))
            #expect(back.created && back.userID != a.userID)
            #expect(await Conformance.code { try await sessions.deleteUser(id: a.userID) } == "user_not_found")
        }
    }
}
