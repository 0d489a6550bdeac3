import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The one pending-authentication record of both second-step doors: stored as a single-use token
/// of purpose `pending-auth` (five minutes), read back as it was begun, spent once; rows written by
/// earlier releases under `mfa-login` (payload: the login's device JSON) and `op-mfa` (payload:
/// `HANDLE METHOD,METHOD`) still read as pending authentications until they expire.
@Suite struct PendingAuthenticationTests {
    static func manager(_ store: any SessionStore, _ clock: TestClock, app: String = "app-a") -> SessionManager {
        var c = SessionConfiguration.test(clock)
        c.app = app
        return SessionManager(store: store, configuration: c)
    }

    @Test("begun, read back as begun, spent once, dead after five minutes, not seen by another app", arguments: StoreKind.available)
    func lifecycle(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Self.manager(t.store, clock)
            let device = #"{"deviceId":"65f0c0ffee0000000000abcd","platform":"swift"}"#
            let pending = PendingAuthentication(userID: "u1", methods: ["local-userpass"], resume: .device(json: device))
            let token = try await sessions.beginPendingAuthentication(pending)
            #expect(token.count == 43)
            let row = try #require(try await t.store.read { tx in
                try await tx.lookUpOneTimeToken(token, purpose: OneTimeTokenPurpose(rawValue: "pending-auth"), app: "app-a")
            })
            #expect(row.subject == "u1" && row.expiresAt == clock.now + 300 && !row.payload.contains(token))
            let step = try #require(try await sessions.pendingStep(token))
            #expect(step.pending == pending && step.token == token && step.pending.flowHandle == nil)
            #expect(try await Self.manager(t.store, clock, app: "app-b").pendingStep(token) == nil)

            // Spent inside a transaction: a second spend of the same step fails and rolls back.
            try await t.store.transaction { tx in try await sessions.spend(step, tx) }
            #expect(try await sessions.pendingStep(token) == nil)
            await #expect(throws: TokenError.self) { try await t.store.transaction { tx in try await sessions.spend(step, tx) } }

            let flow = PendingAuthentication(userID: "u2", methods: ["oauth2-google"], resume: .hostedFlow(handle: "h1.portal"))
            let other = try await sessions.beginPendingAuthentication(flow)
            #expect(try await sessions.pendingStep(other)?.pending.flowHandle == "h1.portal")
            clock.advance(300)
            #expect(try await sessions.pendingStep(other) == nil)
        }
    }

    @Test("a derived token: a live row is kept (no second row), a spent one gives way to a random token", arguments: StoreKind.available)
    func derived(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Self.manager(t.store, clock)
            let pending = PendingAuthentication(userID: "u1", methods: ["local-userpass"], resume: .hostedFlow(handle: "h.portal"))
            let derived = Base64URL.encode([UInt8](repeating: 7, count: 32))
            #expect(try await sessions.beginPendingAuthentication(pending, derived: derived) == derived)
            #expect(try await sessions.beginPendingAuthentication(pending, derived: derived) == derived)
            let step = try #require(try await sessions.pendingStep(derived))
            try await t.store.transaction { tx in try await sessions.spend(step, tx) }
            let next = try await sessions.beginPendingAuthentication(pending, derived: derived)
            #expect(next != derived && next.count == 43)
            #expect(try await sessions.pendingStep(next)?.pending == pending)
        }
    }

    @Test("rows of earlier releases (mfa-login, op-mfa) read as pending authentications and spend under their own purpose", arguments: StoreKind.available)
    func earlierRows(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Self.manager(t.store, clock)
            let device = #"{"deviceId":"65f0c0ffee0000000000abcd"}"#
            let (login, hosted) = ("legacy-login-step-token", "legacy-hosted-step-token")
            try await t.store.transaction { tx in
                for (token, purpose, payload) in [(login, "mfa-login", device), (hosted, "op-mfa", "h2.portal local-userpass")] {
                    try await tx.insertOneTimeToken(
                        OneTimeTokenRecord(
                            purpose: OneTimeTokenPurpose(rawValue: purpose), hash: OneTimeToken.hash(token), app: "app-a", subject: "u9",
                            payload: payload, createdAt: clock.now, expiresAt: clock.now + 300))
                }
            }
            let a = try #require(try await sessions.pendingStep(login))
            #expect(a.pending == PendingAuthentication(userID: "u9", methods: ["local-userpass"], resume: .device(json: device)))
            let b = try #require(try await sessions.pendingStep(hosted))
            #expect(b.pending == PendingAuthentication(userID: "u9", methods: ["local-userpass"], resume: .hostedFlow(handle: "h2.portal")))
            try await t.store.transaction { tx in try await sessions.spend(a, tx) }
            let spent = try await t.store.read { tx in
                try await tx.lookUpOneTimeToken(login, purpose: OneTimeTokenPurpose(rawValue: "mfa-login"), app: "app-a")
            }
            #expect(spent?.usedAt != nil)
            #expect(try await sessions.pendingStep(login) == nil)
            #expect(try await sessions.pendingStep(hosted) != nil)
        }
    }
}
