import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// What the OAuth endpoints need from Sessions: RFC 7009 revocation with the client check, and
/// introspection across the apps of one store; on every store.
@Suite struct OAuthTests {
    /// Two apps on one store and key ring, as the server runs them: audience = client id = app id.
    static func apps(_ store: any SessionStore, _ clock: TestClock) -> (a: SessionManager, b: SessionManager) {
        func app(_ id: String) -> SessionManager {
            var c = SessionConfiguration(issuer: "https://auth.test", audience: id, defaultClientID: id)
            c.clock = clock.tokenClock
            return SessionManager(store: store, configuration: c)
        }
        return (app("app-a"), app("app-b"))
    }

    @Test(arguments: StoreKind.available)
    func publicClientRevokesOnlyItsOwnTokens(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let (a, b) = Self.apps(t.store, clock)
            let ofA = try await Conformance.firstPair(a)
            let ofB = try await b.issueTokens(userID: "alice")
            let all: Set<String> = ["app-a", "app-b"]

            // RFC 7009 §2.1: app-a may not revoke app-b's tokens, of either kind; they stay live.
            for token in [ofB.refreshToken, ofB.accessToken] {
                await #expect(throws: TokenError(.unauthorizedClient, "")) {
                    try await a.revoke(token, by: .publicClient("app-a"), audiences: all)
                }
            }
            #expect(try await b.introspect(ofB.refreshToken).active)
            #expect(try await b.introspect(ofB.accessToken).active)

            // Its own access token ends its session (the refresh token with it).
            #expect(try await a.revoke(ofA.accessToken, by: .publicClient("app-a"), audiences: all) == ofA.sessionID)
            #expect(try await a.introspect(ofA.refreshToken).reason?.code == .refreshTokenRevoked)
            // RFC 7009 §2.2: a token already dead, unknown or malformed is not an error.
            #expect(try await a.revoke(ofA.refreshToken, by: .publicClient("app-a"), audiences: all) == nil)
            #expect(try await a.revoke(ofA.accessToken, by: .publicClient("app-a"), audiences: all) == nil)
            #expect(try await a.revoke(String(repeating: "A", count: 43), by: .publicClient("app-a")) == nil)
            #expect(try await a.revoke("not-a-token", by: .publicClient("app-a")) == nil)
            // A dead token of another app is not refused either: there is nothing left to protect.
            let ofB2 = try await b.issueTokens(userID: "alice")
            try await b.revoke(ofB2.refreshToken)
            #expect(try await a.revoke(ofB2.refreshToken, by: .publicClient("app-a"), audiences: all) == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func authenticatedClientRevokesAnyApp(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let (a, b) = Self.apps(t.store, clock)
            _ = try await a.ensureUser(id: "alice")
            let viaRefresh = try await b.issueTokens(userID: "alice")
            let viaAccess = try await b.issueTokens(userID: "alice")
            #expect(try await a.revoke(viaRefresh.refreshToken, by: .authenticated) == viaRefresh.sessionID)
            #expect(try await b.introspect(viaRefresh.refreshToken).reason?.code == .refreshTokenRevoked)
            // An access token of an app outside `audiences` is not recognised, so nothing is revoked.
            #expect(try await a.revoke(viaAccess.accessToken, by: .authenticated) == nil)
            #expect(try await a.revoke(viaAccess.accessToken, by: .authenticated, audiences: ["app-a", "app-b"]) == viaAccess.sessionID)
            #expect(try await b.introspect(viaAccess.refreshToken).reason?.code == .refreshTokenRevoked)
        }
    }

    @Test(arguments: StoreKind.available)
    func introspectionAcrossApps(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let (a, b) = Self.apps(t.store, clock)
            _ = try await a.ensureUser(id: "alice")
            let ofB = try await b.issueTokens(userID: "alice")
            // app-a alone does not accept app-b's access tokens; with both audiences it does.
            #expect(try await a.introspect(ofB.accessToken).reason?.code == .invalidAudience)
            let seen = try await a.introspect(ofB.accessToken, audiences: ["app-a", "app-b"])
            #expect(seen.active && seen.response["client_id"] == "app-b" && seen.response["aud"] == "app-b")
            // Refresh tokens of every app.
            let refresh = try await a.introspect(ofB.refreshToken)
            #expect(refresh.active && refresh.response["client_id"] == "app-b" && refresh.response["sub"] == "alice")
        }
    }

    /// The OAuth example of docs/sessions.md, verbatim between the markers (DocsTests checks the page against them).
    @Test func sessionsDocExample() async throws {
        try await Harness.withStore(.sqlite) { t in
            var c = SessionConfiguration(issuer: "https://auth.example.com", audience: "myapp-abcde", defaultClientID: "myapp-abcde")
            c.clock = TestClock().tokenClock
            let sessions = SessionManager(store: t.store, configuration: c)
            let appIDs: Set<String> = ["myapp-abcde", "other-app"]
            _ = try await sessions.ensureUser(id: "ada")
            let pair = try await sessions.issueTokens(userID: "ada")
            let token = pair.refreshToken
            // docs/sessions.md begin
            // RFC 7009: a refresh or access token ends its session; nil when there was nothing to end.
            try await sessions.revoke(token, by: .publicClient("myapp-abcde"), audiences: appIDs)
            try await sessions.revoke(token, by: .authenticated, audiences: appIDs)  // a configured client
            // RFC 7662: refresh tokens of every app, access tokens of the given apps.
            let answer = try await sessions.introspect(token, audiences: appIDs)
            // docs/sessions.md end
            #expect(!answer.active && answer.reason?.code == .refreshTokenRevoked)
            #expect(try await sessions.revoke(pair.accessToken, by: .authenticated, audiences: appIDs) == nil, "already ended")
        }
    }
}
