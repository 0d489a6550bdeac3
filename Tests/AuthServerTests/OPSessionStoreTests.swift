import Foundation
import Testing
@testable import AuthServer
@_spi(Testing) @testable import Sessions
import OIDCProvider

/// The OP browser session in the one-time-token store (purpose `op_session`): read as often as
/// needed while it lives, re-authenticated under the same `sid` by the same user, replaced by
/// another user, ended once. On every store, with the clock passed in.
@Suite struct OPSessionStoreTests {
    static let now: Int64 = 1_900_000_000

    @Test(
        "an OP session is read until its expiry, keeps its sid across a re-authentication, and is replaced by another user",
        arguments: StoreKind.available)
    func lifecycle(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let store = t.store
            let (first, session) = try await store.signInOPSession(app: "app-a", userID: "u1", amr: ["pwd"], ttl: 3600, current: nil, at: Self.now)
            #expect(session.authTime == Self.now && session.expiresAt == Self.now + 3600 && session.sessionID.utf8.count == 22)
            #expect(try await store.opSession(token: first, app: "app-a", at: Self.now + 3599) == session)
            #expect(try await store.opSession(token: first, app: "app-a", at: Self.now + 3599) == session)
            #expect(try await store.opSession(token: first, app: "app-a", at: Self.now + 3600) == nil)
            #expect(try await store.opSession(token: first, app: "app-b", at: Self.now) == nil)
            #expect(
                session.exceeds(maxAge: 60, at: Self.now + 61) && !session.exceeds(maxAge: 60, at: Self.now + 60)
                    && !session.exceeds(maxAge: nil, at: .max))

            // The same user again: same sid, new token, auth_time, amr and expiry; the old cookie no longer counts.
            let (second, again) = try await store.signInOPSession(
                app: "app-a", userID: "u1", amr: ["fed"], ttl: 3600, current: first, at: Self.now + 100)
            #expect(second != first && again.sessionID == session.sessionID && again.authTime == Self.now + 100 && again.amr == ["fed"])
            #expect(again.expiresAt == Self.now + 3700)
            #expect(try await store.opSession(token: first, app: "app-a", at: Self.now + 101) == nil)

            // Another user replaces it with a session of their own.
            let (third, other) = try await store.signInOPSession(
                app: "app-a", userID: "u2", amr: ["pwd"], ttl: 3600, current: second, at: Self.now + 200)
            #expect(other.sessionID != session.sessionID && other.userID == "u2")
            #expect(try await store.opSession(token: second, app: "app-a", at: Self.now + 201) == nil)

            // Logout ends it once.
            #expect(try await store.endOPSession(token: third, app: "app-a", at: Self.now + 300) == other)
            #expect(try await store.endOPSession(token: third, app: "app-a", at: Self.now + 301) == nil)
            #expect(try await store.opSession(token: third, app: "app-a", at: Self.now + 302) == nil)
        }
    }

    @Test("a login flow's or a code's token is no OP session", arguments: StoreKind.available)
    func purposesApart(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let issued = try await t.store.transaction { tx in
                try await tx.issueOneTimeToken(
                    purpose: .loginFlow, app: "app-a", subject: "u1", payload: #"{"v":1,"sid":"s","auth_time":1,"amr":[]}"#, createdAt: Self.now,
                    expiresAt: Self.now + 600)
            }
            #expect(try await t.store.opSession(token: issued.token, app: "app-a", at: Self.now) == nil)
            #expect(try await t.store.endOPSession(token: issued.token, app: "app-a", at: Self.now) == nil)
        }
    }
}
