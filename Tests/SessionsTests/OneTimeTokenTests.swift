import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The one-time-token store (`one_time_tokens`): single use under a race, expiry, purpose and app
/// kept apart, one live token per subject and purpose, the sweep, and the rows schema step 12
/// moved from `account_tokens`. On every store.
@Suite struct OneTimeTokenTests {
    static let now: Int64 = 1_900_000_000

    static func issue(
        _ store: some SessionStore, _ purpose: OneTimeTokenPurpose = .reset, app: String = "app-a", subject: String = "acct-1",
        payload: String = #"{"tokenId":"tid"}"#, expiresAt: Int64 = now + 600
    ) async throws -> OneTimeToken {
        try await store.transaction { tx in
            try await tx.issueOneTimeToken(purpose: purpose, app: app, subject: subject, payload: payload, createdAt: now, expiresAt: expiresAt)
        }
    }

    static func consume(
        _ store: some SessionStore, _ token: String, _ purpose: OneTimeTokenPurpose = .reset, app: String = "app-a", at time: Int64 = now
    ) async throws -> OneTimeTokenConsumption {
        try await store.transaction { tx in try await tx.consumeOneTimeToken(token, purpose: purpose, app: app, at: time) }
    }

    @Test("of 16 concurrent consumptions of one token exactly one wins; the others are told it was used", arguments: StoreKind.available)
    func concurrentConsumptionsSucceedOnce(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let issued = try await Self.issue(t.store)
            let store = t.store
            let outcomes = try await withThrowingTaskGroup(of: OneTimeTokenConsumption.self) { group in
                for _ in 0..<16 { group.addTask { try await Self.consume(store, issued.token) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = outcomes.compactMap(\.consumed)
            #expect(winners.count == 1)
            #expect(winners.first?.subject == "acct-1" && winners.first?.payload == #"{"tokenId":"tid"}"# && winners.first?.usedAt == Self.now)
            for outcome in outcomes where outcome.consumed == nil {
                guard case .refused(.used, let record) = outcome else { Issue.record("\(outcome)"); continue }
                #expect(record.usedAt == Self.now)
            }
        }
    }

    @Test("a token works until the second before its expiry; after, it is refused as expired and stays unused", arguments: StoreKind.available)
    func expiry(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let late = try await Self.issue(t.store, expiresAt: Self.now + 10)
            guard case .refused(.expired, let record) = try await Self.consume(t.store, late.token, at: Self.now + 10) else {
                Issue.record("consumed at its expiry")
                return
            }
            #expect(record.usedAt == nil && record.state(at: Self.now + 10) == .expired)
            let found = try await t.store.transaction { tx in try await tx.lookUpOneTimeToken(late.token, purpose: .reset, app: "app-a") }
            #expect(found?.usedAt == nil && found?.state(at: Self.now + 9) == .live)
            let timely = try await Self.issue(t.store, expiresAt: Self.now + 10)
            #expect(try await Self.consume(t.store, timely.token, at: Self.now + 9).consumed != nil)
            guard case .refused(.used, _) = try await Self.consume(t.store, timely.token, at: Self.now + 20) else {
                Issue.record("a used token is told apart from an expired one")
                return
            }
        }
    }

    @Test("a confirm token is no reset token, nor another app's; refused unknown, it stays usable for its purpose", arguments: StoreKind.available)
    func purposeAndAppAreKeptApart(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let confirm = try await Self.issue(t.store, .confirm)
            #expect(try await Self.consume(t.store, confirm.token, .reset) == .unknown)
            #expect(try await Self.consume(t.store, confirm.token, .confirm, app: "app-b") == .unknown)
            #expect(try await Self.consume(t.store, confirm.token, OneTimeTokenPurpose(rawValue: "authorization_code")) == .unknown)
            #expect(try await t.store.transaction { tx in try await tx.lookUpOneTimeToken(confirm.token, purpose: .reset, app: "app-a") } == nil)
            // Stored as its hash only: the token itself is no key.
            #expect(try await t.store.transaction { tx in try await tx.oneTimeToken(purpose: .confirm, hash: confirm.token, app: "app-a") } == nil)
            #expect(confirm.record.hash == OneTimeToken.hash(confirm.token) && confirm.record.hash != confirm.token)
            #expect(try await Self.consume(t.store, confirm.token, .confirm).consumed?.purpose == .confirm)
        }
    }

    @Test("a new token of a subject and purpose ends the live ones of that subject, purpose and app only", arguments: StoreKind.available)
    func expiringOneSubjectsTokens(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let first = try await Self.issue(t.store), second = try await Self.issue(t.store)
            let otherPurpose = try await Self.issue(t.store, .confirm)
            let otherSubject = try await Self.issue(t.store, subject: "acct-2")
            let otherApp = try await Self.issue(t.store, app: "app-b")
            let used = try await Self.issue(t.store)
            #expect(try await Self.consume(t.store, used.token).consumed != nil)
            let ended = try await t.store.transaction { tx in
                try await tx.expireOneTimeTokens(purpose: .reset, app: "app-a", subject: "acct-1", at: Self.now)
            }
            #expect(ended == 2)
            for token in [first, second] {
                guard case .refused(.expired, _) = try await Self.consume(t.store, token.token) else { Issue.record("still live"); continue }
            }
            #expect(try await Self.consume(t.store, otherPurpose.token, .confirm).consumed != nil)
            #expect(try await Self.consume(t.store, otherSubject.token).consumed != nil)
            #expect(try await Self.consume(t.store, otherApp.token, app: "app-b").consumed != nil)
        }
    }

    @Test("the sweep deletes tokens used or expired at or before its cut-off, and nothing else", arguments: StoreKind.available)
    func sweep(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let expired = try await Self.issue(t.store, expiresAt: Self.now + 5)
            let used = try await Self.issue(t.store)
            #expect(try await Self.consume(t.store, used.token, at: Self.now + 5).consumed != nil)
            let usedLater = try await Self.issue(t.store)
            #expect(try await Self.consume(t.store, usedLater.token, at: Self.now + 6).consumed != nil)
            let live = try await Self.issue(t.store)
            #expect(try await t.store.transaction { tx in try await tx.deleteOneTimeTokens(endedBefore: Self.now + 5) } == 2)
            #expect(try await Self.consume(t.store, expired.token, at: Self.now + 7) == .unknown)
            #expect(try await Self.consume(t.store, used.token, at: Self.now + 7) == .unknown)
            guard case .refused(.used, _) = try await Self.consume(t.store, usedLater.token, at: Self.now + 7) else {
                Issue.record("swept before its cut-off")
                return
            }
            #expect(try await Self.consume(t.store, live.token, at: Self.now + 7).consumed != nil)
            // The server's sweep (`Throttle.purge`) keeps ended tokens for a while (a used code
            // presented again must still be seen as used), then removes them.
            #expect(try await t.store.transaction { tx in try await tx.purgeAccounts(now: Self.now + 7) } == 0)
            guard case .refused(.used, _) = try await Self.consume(t.store, usedLater.token, at: Self.now + 8) else {
                Issue.record("swept while it is kept")
                return
            }
            let later = Self.now + 7 + OneTimeTokenRecord.keptAfterEnd
            #expect(try await t.store.transaction { tx in try await tx.purgeAccounts(now: later) } == 2)
            #expect(try await Self.consume(t.store, usedLater.token, at: later) == .unknown)
        }
    }

    @Test("confirm and reset links stored before schema step 12 still work after it; used and expired ones say so", arguments: StoreKind.available)
    func linksStoredBeforeTheMove(kind: StoreKind) async throws {
        let now = Self.now
        func h(_ token: String) -> String { Base64URL.encode(SHA2.sha256(Array(token.utf8))) }
        try await Harness.withStore(kind, migratingTo: 11) { t in
            for sql in [
                """
                INSERT INTO accounts (id, app, user_id, email, email_key, password_hash, confirmed_at, created_at) VALUES
                  ('acct-1', 'app-a', NULL, 'Old@example.com', 'old@example.com', 'x', NULL, \(now - 100)),
                  ('acct-2', 'app-b', NULL, 'b@example.com', 'b@example.com', 'x', \(now - 100), \(now - 100))
                """,
                """
                INSERT INTO account_tokens (hash, token_id, account_id, purpose, created_at, expires_at, used_at) VALUES
                  ('\(h("confirm-1"))', 'tid-c', 'acct-1', 'confirm', \(now - 100), \(now + 86_000), NULL),
                  ('\(h("reset-1"))', 'tid-r', 'acct-1', 'reset', \(now - 100), \(now + 1_000), NULL),
                  ('\(h("reset-used"))', 'tid-u', 'acct-1', 'reset', \(now - 200), \(now + 1_000), \(now - 50)),
                  ('\(h("reset-expired"))', 'tid-e', 'acct-1', 'reset', \(now - 5_000), \(now - 10), NULL),
                  ('\(h("reset-b"))', 'tid-b', 'acct-2', 'reset', \(now - 100), \(now + 1_000), NULL)
                """,
            ] { try await t.executeRaw(sql) }
            let store = try await t.reopen(nil)
            #expect(try await store.schemaVersion() == SessionSchema.latestVersion)
            let moved = try #require(
                try await store.transaction { tx in try await tx.lookUpOneTimeToken("confirm-1", purpose: .confirm, app: "app-a") })
            #expect(moved.subject == "acct-1" && moved.createdAt == now - 100 && moved.expiresAt == now + 86_000 && moved.usedAt == nil)
            #expect(AccountTokenRecord(moved)?.tokenID == "tid-c")
            // The old table is gone.
            #expect(await Conformance.code { try await t.executeRaw("SELECT hash FROM account_tokens") } != nil)

            let clock = TestClock(now)
            func accounts(_ app: String) throws -> AccountManager {
                var c = SessionConfiguration.test(clock)
                c.app = app
                var policy = AccountPolicy(minPasswordLength: 6)
                policy.hashParameters = AccountTests.fast
                return try AccountManager(
                    sessions: SessionManager(store: store, configuration: c), policy: policy,
                    hasher: PasswordHasher(parameters: AccountTests.fast, concurrency: 2))
            }
            let a = try accounts("app-a"), b = try accounts("app-b")
            #expect(try await a.linkProblem(token: "reset-used", tokenID: "tid-u", purpose: .reset) == .used)
            #expect(try await a.linkProblem(token: "reset-expired", tokenID: "tid-e", purpose: .reset) == .expired)
            #expect(try await a.linkProblem(token: "reset-1", tokenID: "tid-c", purpose: .reset) == .invalid)
            #expect(await Conformance.code { try await a.confirm(token: "confirm-1", tokenID: "tid-r") } == "userpass_token_invalid")
            #expect(try await a.confirm(token: "confirm-1", tokenID: "tid-c") == "acct-1")
            #expect(try await a.resetPassword(token: "reset-1", tokenID: "tid-r", newPassword: "new password").id == "acct-1")
            #expect(try await a.login(email: "old@example.com", password: "new password") == .success(userID: "acct-1"))
            #expect(await Conformance.code { try await a.resetPassword(token: "reset-b", tokenID: "tid-b", newPassword: "new password") } != nil)
            #expect(try await b.resetPassword(token: "reset-b", tokenID: "tid-b", newPassword: "b password").id == "acct-2")
            try await store.close()
        }
    }
}
