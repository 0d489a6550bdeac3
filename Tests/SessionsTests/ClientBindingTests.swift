import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Refresh tokens are bound to their client, on every store.
@Suite struct ClientBindingTests {
    @Test(arguments: StoreKind.available)
    func anotherClientCannotRefreshOrRevoke(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            _ = try await sessions.ensureUser(id: "alice")
            let pair = try await sessions.issueTokens(userID: "alice", clientID: "ios-app")
            #expect(await Conformance.code { try await sessions.refresh(pair.refreshToken, clientID: "web-app") } == "invalid_grant")
            #expect(await Conformance.code { try await sessions.revoke(pair.refreshToken, clientID: "web-app") } == "invalid_grant")
            #expect(await Conformance.code { try await sessions.revoke(pair.accessToken, clientID: "web-app") } == "invalid_grant")
            // Nothing was spent or revoked: the owner still refreshes (not a reuse), then logs out.
            let record = try #require(try await Conformance.record(t.store, of: pair.refreshToken))
            #expect(record.usedAt == nil)
            let next = try await sessions.refresh(pair.refreshToken, clientID: "ios-app")
            #expect(next.sessionID == pair.sessionID)
            #expect(try await Conformance.session(t.store, id: pair.sessionID)?.revokedAt == nil)
            try await sessions.revoke(next.refreshToken, clientID: "ios-app")
            #expect(try await Conformance.session(t.store, id: pair.sessionID)?.revokedAt == clock.now)
        }
    }

    @Test(arguments: StoreKind.available)
    func cliRefreshAndRevokeUseTheClientID(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let s = ["--store", t.location, "--json"]
            let issue = try await CLITests.tokentool(["token", "issue", "--sub", "alice", "--client-id", "web-app"] + s)
            #expect(issue.status == 0, "\(issue.stderr)")
            let rt = try #require(try issue.json["refresh_token"]?.stringValue)
            let other = try await CLITests.tokentool(["token", "refresh", "-"] + s, stdin: rt)
            #expect(other.status == 1)
            #expect(other.errorCode == "invalid_grant")
            let revoke = try await CLITests.tokentool(["token", "revoke", "--client-id", "ios-app", "-"] + s, stdin: rt)
            #expect(revoke.errorCode == "invalid_grant")
            let own = try await CLITests.tokentool(["token", "refresh", "--client-id", "web-app", "-"] + s, stdin: rt)
            #expect(own.status == 0, "\(own.stderr)")
        }
    }
}
