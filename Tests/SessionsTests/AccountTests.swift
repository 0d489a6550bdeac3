import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Email/password accounts (register, confirm, reset, login), on every store.
@Suite struct AccountTests {
    /// Cheap scrypt parameters for tests (ln=10: 1 MiB); the default ones are measured elsewhere.
    static let fast = Scrypt.Parameters(logN: 10, r: 8, p: 1)

    static func accounts(
        _ store: some SessionStore, _ clock: TestClock, autoConfirm: Bool = false,
        parameters: Scrypt.Parameters = fast
    ) throws -> AccountManager {
        var policy = AccountPolicy(minPasswordLength: 6, autoConfirm: autoConfirm)
        policy.hashParameters = parameters
        return try AccountManager(
            sessions: Conformance.manager(store, clock), policy: policy,
            hasher: PasswordHasher(parameters: parameters, concurrency: 2))
    }

    /// Registers `email` and returns its confirmation token.
    static func registered(_ a: AccountManager, _ email: String, _ password: String) async throws -> AccountToken {
        guard case .created(_, let token?) = try await a.register(email: email, password: password) else {
            throw HarnessError("\(email) was not created with a token")
        }
        return token
    }

    @Test(arguments: StoreKind.available)
    func registerConfirmLogin(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try Self.accounts(t.store, TestClock())
            let token = try await Self.registered(a, "Alice@Example.com", "correct horse")
            #expect(await Conformance.code { try await a.login(email: "alice@example.com", password: "correct horse") } == "email_not_confirmed")
            #expect(await Conformance.code { try await a.login(email: "alice@example.com", password: "wrong horse") } == "login_failed")
            let user = try await a.confirm(token: token.token, tokenID: token.tokenID)
            #expect(user == token.accountID)
            // Compared after NFC and lower-casing; stored as given.
            #expect(try await a.login(email: "ALICE@example.COM", password: "correct horse") == .success(userID: user))
            #expect(try await a.account(email: "alice@EXAMPLE.com")?.email == "Alice@Example.com")
            let identity = try #require(
                try await t.store.transaction { tx in try await tx.identity(provider: "local-userpass", subject: "Alice@Example.com") })
            #expect(identity.userID == user)
            // Used once.
            #expect(await Conformance.code { try await a.confirm(token: token.token, tokenID: token.tokenID) } == "userpass_token_invalid")
        }
    }

    @Test(arguments: StoreKind.available)
    func takenAddressAnswersAsNew(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try Self.accounts(t.store, TestClock())
            _ = try await Self.registered(a, "bob@example.com", "first password")
            #expect(try await a.register(email: "BOB@example.com", password: "another one") == .taken(email: "bob@example.com"))
            // NFD spelling of an NFC address is the same address.
            _ = try await Self.registered(a, "jos\u{E9}@example.com", "password 1")
            #expect(try await a.register(email: "jose\u{301}@example.com", password: "password 2") == .taken(email: "jos\u{E9}@example.com"))
            // Confirmation for an unknown address: nothing issued; for a confirmed one: nothing either.
            #expect(try await a.issueConfirmation(email: "nobody@example.com") == nil)
            #expect(try await a.issueReset(email: "nobody@example.com") == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func passwordRuleCountsScalarsAfterNFC(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try Self.accounts(t.store, TestClock(), autoConfirm: true)
            #expect(await Conformance.code { try await a.register(email: "s@example.com", password: "12345") } == "invalid_password")
            #expect(
                await Conformance.code { try await a.register(email: "s@example.com", password: String(repeating: "x", count: 129)) }
                    == "invalid_password")
            // 128 decomposed "é" are 256 scalars in NFD but 128 after NFC: allowed.
            let nfd = String(repeating: "e\u{301}", count: 128)
            guard case .created(let user, nil) = try await a.register(email: "u@example.com", password: nfd) else {
                throw HarnessError("not created")
            }
            // The NFC spelling is the same password.
            #expect(try await a.login(email: "u@example.com", password: String(repeating: "\u{E9}", count: 128)) == .success(userID: user))
            // Emoji and other scripts.
            guard case .created(let other, nil) = try await a.register(email: "emoji@example.com", password: "🔑пароль密码") else {
                throw HarnessError("not created")
            }
            #expect(try await a.login(email: "emoji@example.com", password: "🔑пароль密码") == .success(userID: other))
            #expect(await Conformance.code { try await a.register(email: "no-at-sign", password: "long enough") } == "invalid_email")
            #expect(await Conformance.code { try await a.register(email: "a b@example.com", password: "long enough") } == "invalid_email")
        }
    }

    @Test(arguments: StoreKind.available)
    func resetEndsSessionsAndConfirms(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let a = try Self.accounts(t.store, clock)
            let confirm = try await Self.registered(a, "carol@example.com", "old password")
            // Registration makes no user; the account's user comes with its first login (here, directly).
            #expect(try await a.sessions.user(id: confirm.accountID) == nil)
            let user = try await a.user(of: try #require(try await a.account(email: "carol@example.com")))
            #expect(user == confirm.accountID)
            let signIn = try await a.sessions.issueTokens(userID: user)
            let reset = try #require(try await a.issueReset(email: "Carol@example.com"))
            #expect(reset.email == "carol@example.com" && reset.expiresAt == clock.now + 1800)
            // Too short: refused, and the link still works.
            #expect(
                await Conformance.code { try await a.resetPassword(token: reset.token, tokenID: reset.tokenID, newPassword: "short") }
                    == "invalid_password")
            // A confirm token is not a reset token.
            #expect(
                await Conformance.code { try await a.resetPassword(token: confirm.token, tokenID: confirm.tokenID, newPassword: "new password") }
                    == "userpass_token_invalid")
            try await a.resetPassword(token: reset.token, tokenID: reset.tokenID, newPassword: "new password")
            #expect(
                await Conformance.code { try await a.resetPassword(token: reset.token, tokenID: reset.tokenID, newPassword: "newer password") }
                    == "userpass_token_invalid")
            // Confirmed by the reset; the old password is gone; the old session ended.
            #expect(try await a.login(email: "carol@example.com", password: "new password") == .success(userID: user))
            #expect(await Conformance.code { try await a.login(email: "carol@example.com", password: "old password") } == "login_failed")
            #expect(await Conformance.code { try await a.sessions.refresh(signIn.refreshToken) } == "refresh_token_revoked")
        }
    }

    @Test(arguments: StoreKind.available)
    func hostileTokens(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let a = try Self.accounts(t.store, clock)
            let dave = try await Self.registered(a, "dave@example.com", "dave password")
            let erin = try await Self.registered(a, "erin@example.com", "erin password")
            let bad = "userpass_token_invalid"
            // Another user's token id with this token, and the reverse.
            #expect(await Conformance.code { try await a.confirm(token: dave.token, tokenID: erin.tokenID) } == bad)
            #expect(await Conformance.code { try await a.confirm(token: erin.token, tokenID: dave.tokenID) } == bad)
            #expect(await Conformance.code { try await a.confirm(token: "", tokenID: "") } == bad)
            #expect(await Conformance.code { try await a.confirm(token: String(repeating: "A", count: 10_000), tokenID: dave.tokenID) } == bad)
            #expect(await Conformance.code { try await a.confirm(token: "a\u{0}b", tokenID: dave.tokenID) } == bad)
            // Expired: a reset lives 30 minutes, a confirmation 24 hours.
            let reset = try #require(try await a.issueReset(email: "dave@example.com"))
            clock.advance(1800)
            #expect(
                await Conformance.code { try await a.resetPassword(token: reset.token, tokenID: reset.tokenID, newPassword: "later password") } == bad
            )
            clock.advance(86_400 - 1800 - 1)
            #expect(try await a.confirm(token: dave.token, tokenID: dave.tokenID) == dave.accountID)
            clock.advance(1)
            #expect(await Conformance.code { try await a.confirm(token: erin.token, tokenID: erin.tokenID) } == bad)
            // Tokens are stored hashed: the raw token appears nowhere.
            #expect(
                try await t.store.transaction { tx in
                    try await tx.consumeOneTimeToken(purpose: .confirm, hash: erin.token, app: "", at: 0)
                } == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func concurrentResetsWithOneTokenSucceedOnce(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try Self.accounts(t.store, TestClock(), autoConfirm: true)
            _ = try await a.register(email: "frank@example.com", password: "frank password")
            let reset = try #require(try await a.issueReset(email: "frank@example.com"))
            let results = await withTaskGroup(of: String?.self) { group in
                for i in 0..<8 {
                    group.addTask {
                        await Conformance.code { try await a.resetPassword(token: reset.token, tokenID: reset.tokenID, newPassword: "password \(i)") }
                    }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(results.filter { $0 == nil }.count == 1)
            #expect(results.filter { $0 == "userpass_token_invalid" }.count == 7)
        }
    }

    @Test(arguments: StoreKind.available)
    func concurrentRegistrationsCreateOneAccount(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try Self.accounts(t.store, TestClock())
            let results = try await withThrowingTaskGroup(of: AccountManager.Registration.self) { group in
                for i in 0..<6 {
                    group.addTask { try await a.register(email: i % 2 == 0 ? "gina@example.com" : "GINA@example.com", password: "gina password") }
                }
                return try await group.reduce(into: [AccountManager.Registration]()) { $0.append($1) }
            }
            #expect(results.filter { if case .created = $0 { true } else { false } }.count == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func weakerHashIsUpgradedAtLogin(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let weak = Scrypt.Parameters(logN: 4, r: 8, p: 1)
            let old = try Self.accounts(t.store, clock, autoConfirm: true, parameters: weak)
            guard case .created(let user, _) = try await old.register(email: "hal@example.com", password: "hal password") else {
                throw HarnessError("not created")
            }
            let a = try Self.accounts(t.store, clock, autoConfirm: true)
            #expect(try await a.login(email: "hal@example.com", password: "hal password") == .success(userID: user))
            let stored = try PasswordHash(parsing: try #require(try await a.account(email: "hal@example.com")).passwordHash)
            #expect(stored.parameters == Self.fast)
            #expect(try await a.login(email: "hal@example.com", password: "hal password") == .success(userID: user))
        }
    }

    @Test(arguments: StoreKind.available)
    func guessingIsThrottledPerAccount(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let a = try Self.accounts(t.store, clock, autoConfirm: true)
            guard case .created(let user, _) = try await a.register(email: "ivy@example.com", password: "ivy password") else {
                throw HarnessError("not created")
            }
            let limit = try RateLimit(parsing: "10/15m")
            var failures = 0, throttled = 0
            for i in 0..<1000 {
                do {
                    if case .throttled(let after) = try await a.login(
                        email: i % 2 == 0 ? "ivy@example.com" : "IVY@example.com",
                        password: "guess \(i)", failureLimit: limit)
                    {
                        throttled += 1
                        #expect(after == 900)
                    }
                } catch let e as TokenError where e.code == .loginFailed {
                    failures += 1
                }
            }
            #expect(failures == 10 && throttled == 990)
            // The right password is refused too while the limit holds, and accepted once the window has passed.
            #expect(try await a.login(email: "ivy@example.com", password: "ivy password", failureLimit: limit) == .throttled(retryAfter: 900))
            clock.advance(900)
            #expect(try await a.login(email: "ivy@example.com", password: "ivy password", failureLimit: limit) == .success(userID: user))
            // Unknown emails are counted alike, so the limit tells nothing.
            for _ in 0..<10 { _ = await Conformance.code { try await a.login(email: "nobody@example.com", password: "x", failureLimit: limit) } }
            #expect(try await a.login(email: "nobody@example.com", password: "x", failureLimit: limit) == .throttled(retryAfter: 900))
        }
    }
}

/// No enumeration: the answers for a taken and a new address, a known and an unknown email, do
/// the same work (one scrypt at the policy's parameters) and fail with the same code.
@Suite struct AccountEnumerationTests {
    @Test(arguments: StoreKind.available)
    func takenAndNewAddressesCostTheSame(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try AccountTests.accounts(t.store, TestClock())
            _ = try await a.register(email: "known@example.com", password: "known password")
            var before = await a.hasher.derivations()
            _ = try await a.register(email: "KNOWN@example.com", password: "some password")
            let taken = await a.hasher.derivations() - before
            before = await a.hasher.derivations()
            _ = try await a.register(email: "new@example.com", password: "some password")
            let fresh = await a.hasher.derivations() - before
            #expect(taken == 1 && fresh == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func unknownEmailAndWrongPasswordLookAlike(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try AccountTests.accounts(t.store, TestClock(), autoConfirm: true)
            _ = try await a.register(email: "known@example.com", password: "known password")
            var before = await a.hasher.derivations()
            let wrong = await Conformance.code { try await a.login(email: "known@example.com", password: "wrong password") }
            let wrongWork = await a.hasher.derivations() - before
            before = await a.hasher.derivations()
            let unknown = await Conformance.code { try await a.login(email: "unknown@example.com", password: "wrong password") }
            #expect(wrong == "login_failed" && unknown == "login_failed")
            let unknownWork = await a.hasher.derivations() - before
            #expect(wrongWork == 1 && unknownWork == 1)
            #expect(a.hasher.dummy.parameters == a.hasher.parameters)  // the dummy costs what a real hash costs
        }
    }
}
