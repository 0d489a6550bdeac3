import Foundation
import Identity
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Apps are separate (docs/security.md): two managers of two apps on one store, on every store.
@Suite struct AppSeparationTests {
    static func managers(_ store: some SessionStore, _ clock: TestClock) -> (SessionManager, SessionManager) {
        var a = SessionConfiguration.test(clock)
        a.app = "app-a"
        var b = SessionConfiguration.test(clock)
        b.app = "app-b"
        return (SessionManager(store: store, configuration: a), SessionManager(store: store, configuration: b))
    }

    @Test("the same Google subject in two apps is two users; neither app issues for, links to or keeps the other's", arguments: StoreKind.available)
    func oneSubjectTwoApps(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let (a, b) = Self.managers(t.store, TestClock())
            let google = Conformance.identity("oauth2-google", "1234567890", email: "a@example.com")
            let inA = try await a.signIn(with: google), inB = try await b.signIn(with: google)
            #expect(inA.created && inB.created && inA.userID != inB.userID)
            #expect(try await a.signIn(with: google).userID == inA.userID)
            #expect(try await b.user(id: inB.userID)?.app == "app-b")
            #expect(await Conformance.code { try await a.issueTokens(userID: inB.userID) } == "user_not_found")
            #expect(await Conformance.code { try await a.link(Conformance.identity("apple", "x"), to: inB.userID) } == "user_not_found")
            #expect(await Conformance.code { try await a.refresh(inB.tokens.refreshToken) } != nil)
            #expect(await Conformance.code { try await a.ensureUser(id: inB.userID) } == "invalid_input")
            let claims = try await b.verifyAccessToken(inB.tokens.accessToken, checkSession: false)
            #expect(try await b.isLive(claims))
            #expect(try await !a.isLive(claims))
        }
    }

    @Test("users of earlier releases join the app their latest session names, or the only app", arguments: StoreKind.available)
    func legacyUsersAreAdopted(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let legacy = SessionManager(store: t.store, configuration: .test(clock))
            let (a, b) = Self.managers(t.store, clock)
            let inB = try await legacy.signIn(with: Conformance.identity("oauth2-google", "g1"), clientID: "app-b")
            let none = try await legacy.signIn(with: Conformance.identity("oauth2-google", "g2"))
            // Two apps: the user whose session names app-b joins it; the other stays in the empty app.
            #expect(try await SessionManager.adoptLegacyUsers(store: t.store, apps: ["app-a", "app-b"], at: clock.now) == 1)
            #expect(try await b.signIn(with: Conformance.identity("oauth2-google", "g1")).userID == inB.userID)
            #expect(try await b.refresh(inB.tokens.refreshToken).userID == inB.userID)
            #expect(try await a.user(id: none.userID)?.app == "")
            // One app: every remaining user joins it.
            #expect(try await SessionManager.adoptLegacyUsers(store: t.store, apps: ["app-a"], at: clock.now) == 1)
            #expect(try await a.signIn(with: Conformance.identity("oauth2-google", "g2")).userID == none.userID)
        }
    }
}
