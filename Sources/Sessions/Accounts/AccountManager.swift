import Foundation
import Identity
import JOSE

/// Email/password accounts: registration, confirmation, password reset and sign-in, with the
/// rules of docs/accounts.md. Routes call this; it decides everything.
///
/// Answers never tell whether an email is registered: ``register(email:password:)`` of a taken
/// address succeeds as for a new one (the caller mails the owner a notice instead), a token is
/// issued only for a known address but the caller answers alike either way, and a failed sign-in
/// is `login_failed` whether the email or the password is wrong, after the same scrypt work.
///
/// ```swift
/// let accounts = try AccountManager(sessions: sessions, policy: AccountPolicy(minPasswordLength: 8))
/// if case .created(_, let token?) = try await accounts.register(email: "a@example.com", password: "correct horse") {
///     // mail token.token and token.tokenID to the address
/// }
/// ```
public struct AccountManager: Sendable {
    public let sessions: SessionManager
    public let policy: AccountPolicy
    /// Checks passwords at sign-in.
    public let hasher: PasswordHasher
    /// Hashes the new passwords of registrations and resets: a budget apart from ``hasher``'s,
    /// so that callers who proved nothing cannot keep sign-ins waiting for scrypt.
    public let newPasswordHasher: PasswordHasher
    public let throttle: Throttle

    /// `newPasswordHasher` defaults to `hasher` (one budget for all).
    /// - Throws: `invalid_configuration` for a policy out of range.
    public init(
        sessions: SessionManager, policy: AccountPolicy = AccountPolicy(), hasher: PasswordHasher? = nil,
        newPasswordHasher: PasswordHasher? = nil
    ) throws {
        try policy.validate()
        self.sessions = sessions
        self.policy = policy
        let hasher = try hasher ?? PasswordHasher(parameters: policy.hashParameters)
        self.hasher = hasher
        self.newPasswordHasher = newPasswordHasher ?? hasher
        throttle = Throttle(store: sessions.store, clock: sessions.configuration.clock)
    }

    /// The outcome of ``register(email:password:)``; the caller answers both alike.
    public enum Registration: Sendable, Hashable {
        /// A new account (its user comes with its first login); `confirmation` is the token to
        /// mail, `nil` under `autoConfirm`.
        case created(accountID: String, confirmation: AccountToken?)
        /// The address (as normalised) is taken; mail its owner a notice at `email`.
        case taken(email: String)
    }

    /// Registers an unconfirmed account (which may sign in at once under `autoConfirm`, its address
    /// still unproven until a mailed link or a reset), without a user:
    /// its first login creates the user, or a link joins it to an existing one.
    /// - Throws: `invalid_email`, `invalid_password`, `too_many_requests` (hashing queue full),
    ///   `store_unavailable`.
    public func register(email: String, password: String) async throws -> Registration {
        try PasswordRule.checkEmail(email)
        try PasswordRule.check(password, minLength: policy.minPasswordLength)
        // Hashed whether or not the address is taken: both answers cost one scrypt.
        let hash = try await newPasswordHasher.hash(password).encoded
        let key = PasswordRule.emailKey(email)
        let now = sessions.configuration.now
        let app = sessions.configuration.app
        let autoConfirm = policy.autoConfirm
        let lifetime = policy.confirmTokenLifetime
        for _ in 0..<3 {
            let accountID = try SessionManager.newUserID()
            do {
                return try await sessions.store.transaction { tx in
                    if let existing = try await tx.account(app: app, emailKey: key) { return .taken(email: existing.email) }
                    let account = AccountRecord(
                        id: accountID, userID: nil, email: email, emailKey: key, passwordHash: hash,
                        // `auto_confirm` lets the account sign in unconfirmed; `confirmed_at` stays
                        // what a mailed link or a completed reset proved (ID tokens' `email_verified`).
                        confirmedAt: nil, createdAt: now, app: app)
                    guard try await tx.insertAccount(account) else { throw AccountRaceLost() }
                    if autoConfirm { return .created(accountID: accountID, confirmation: nil) }
                    let token = try await AccountToken.issue(tx, purpose: .confirm, account: account, now: now, lifetime: lifetime)
                    return .created(accountID: accountID, confirmation: token)
                }
            } catch is AccountRaceLost {
                continue  // a concurrent registration took the address: read again, answer `taken`
            }
        }
        throw TokenError(.storeUnavailable, "could not settle a concurrent registration")
    }

    /// A new confirmation token for an unconfirmed account, or `nil` for an unknown or already
    /// confirmed address (the caller answers alike; `UserAlreadyConfirmed` is never said). Earlier
    /// live tokens of the account and purpose expire: one is live at a time (reset tokens alike).
    /// - Throws: `store_unavailable`.
    public func issueConfirmation(email: String) async throws -> AccountToken? {
        try await issue(.confirm, email: email, lifetime: policy.confirmTokenLifetime) { $0.confirmedAt == nil }
    }

    /// A new reset token for the account, or `nil` for an unknown address.
    /// - Throws: `store_unavailable`.
    public func issueReset(email: String) async throws -> AccountToken? {
        try await issue(.reset, email: email, lifetime: policy.resetTokenLifetime) { _ in true }
    }

    /// Confirms the account whose confirmation token this is, spending the token.
    /// - Returns: the account id.
    /// - Throws: `userpass_token_invalid` for an unknown, used, expired or mismatched token.
    @discardableResult
    public func confirm(token: String, tokenID: String) async throws -> String {
        let now = sessions.configuration.now
        let app = sessions.configuration.app
        return try await sessions.store.transaction { tx in
            let record = try await Self.spend(tx, .confirm, token: token, tokenID: tokenID, now: now, app: app)
            _ = try await tx.confirmAccount(id: record.accountID, at: now)
            return record.accountID
        }
    }

    /// Sets a new password with a reset token: spends the token, confirms the account, ends
    /// every session of the user and disables its API keys. The password is checked before the
    /// token is spent, so a too-short password leaves the link usable. The token is looked up (a
    /// SHA-256 and one indexed read) before the password is hashed: a made-up token costs no scrypt.
    /// - Returns: the account (its email, for the notice mail).
    /// - Throws: `invalid_password`, `userpass_token_invalid`, `too_many_requests`, `store_unavailable`.
    @discardableResult
    public func resetPassword(token: String, tokenID: String, newPassword: String) async throws -> AccountRecord {
        try PasswordRule.check(newPassword, minLength: policy.minPasswordLength)
        guard let record = try await tokenRecord(token: token, tokenID: tokenID, purpose: .reset), record.usedAt == nil,
            record.expiresAt > sessions.configuration.now
        else { throw TokenError(.userpassTokenInvalid, "the link is invalid, already used or expired") }
        // Spent (atomically, once) only after the hash: a concurrent use may still win, and is refused then.
        return try await resetPassword(token: token, tokenID: tokenID, hash: try await newPasswordHasher.hash(newPassword).encoded)
    }

    /// ``resetPassword(token:tokenID:newPassword:)`` with the new password already hashed.
    func resetPassword(token: String, tokenID: String, hash: String) async throws -> AccountRecord {
        let now = sessions.configuration.now
        let app = sessions.configuration.app
        return try await sessions.store.transaction { tx in
            let record = try await Self.spend(tx, .reset, token: token, tokenID: tokenID, now: now, app: app)
            return try await Self.setPassword(tx, accountID: record.accountID, hash: hash, now: now)
        }
    }

    /// The account registered under `email` (compared after NFC and lower-casing), if any.
    public func account(email: String) async throws -> AccountRecord? {
        guard email.utf8.count <= PasswordRule.maxEmailBytes else { return nil }
        let key = PasswordRule.emailKey(email)
        let app = sessions.configuration.app
        return try await sessions.store.transaction { tx in try await tx.account(app: app, emailKey: key) }
    }

    // MARK: - internals

    private func issue(
        _ purpose: AccountTokenRecord.Purpose, email: String, lifetime: Int64,
        when eligible: @escaping @Sendable (AccountRecord) -> Bool
    ) async throws -> AccountToken? {
        guard (try? PasswordRule.checkEmail(email)) != nil else { return nil }
        let key = PasswordRule.emailKey(email)
        let now = sessions.configuration.now
        let app = sessions.configuration.app
        return try await sessions.store.transaction { tx in
            guard let account = try await tx.account(app: app, emailKey: key), eligible(account) else { return nil }
            // One live token per account and purpose: the newest link works, earlier ones have expired.
            _ = try await tx.expireOneTimeTokens(purpose: purpose.oneTime, app: account.app, subject: account.id, at: now)
            return try await AccountToken.issue(tx, purpose: purpose, account: account, now: now, lifetime: lifetime)
        }
    }

    /// Spends a token of `app`'s accounts (one conditional statement, see
    /// ``SessionStoreTransaction/consumeOneTimeToken(purpose:hash:app:at:)``). A token whose id
    /// does not match, or whose account is gone, is invalid here, and the transaction's roll-back
    /// leaves it unspent.
    static func spend(
        _ tx: any SessionStoreTransaction, _ purpose: AccountTokenRecord.Purpose, token: String, tokenID: String,
        now: Int64, app: String
    ) async throws -> AccountTokenRecord {
        let invalid = TokenError(.userpassTokenInvalid, "the link is invalid, already used or expired")
        guard (1...128).contains(token.utf8.count), (1...128).contains(tokenID.utf8.count) else { throw invalid }
        guard let consumed = try await tx.consumeOneTimeToken(purpose: purpose.oneTime, hash: OneTimeToken.hash(token), app: app, at: now),
            let record = AccountTokenRecord(consumed), ConstantTime.equals(Array(record.tokenID.utf8), Array(tokenID.utf8)),
            try await tx.account(id: record.accountID, forUpdate: false)?.app == app
        else { throw invalid }
        return record
    }

    private static func setPassword(_ tx: any SessionStoreTransaction, accountID: String, hash: String, now: Int64) async throws -> AccountRecord {
        guard var account = try await tx.account(id: accountID, forUpdate: false),
            try await tx.updatePasswordHash(accountID: accountID, hash: hash, expected: nil)
        else { throw TokenError(.userNotFound, "no such account") }
        _ = try await tx.confirmAccount(id: accountID, at: now)
        if let userID = account.userID {
            for session in try await tx.sessions(userID: userID) where session.revokedAt == nil {
                _ = try await tx.revokeSession(id: session.id, at: now, reason: "password_reset")
            }
            // The browsers signed in before the reset too (in the same transaction).
            try await tx.endOPBrowserSessions(app: account.app, userID: userID, at: now)
            // A key made by whoever held the account before the reset must not outlive it; the
            // owner enables again the keys it still needs.
            for key in try await tx.apiKeys(userID: userID) where !key.disabled {
                _ = try await tx.setAPIKeyDisabled(id: key.id, userID: userID, disabled: true)
            }
        }
        account.passwordHash = hash
        account.confirmedAt = account.confirmedAt ?? now
        return account
    }
}

private struct AccountRaceLost: Error {}
