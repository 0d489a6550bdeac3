import Identity
import JOSE

extension AccountManager {
    /// What the app's function answered to a `confirm/call` or `reset/call`.
    public enum FunctionVerdict: String, Sendable, Hashable {
        /// Confirm the user / set the new password now.
        case success
        /// The app completes it later through `confirm` / `reset` with the token it was given.
        case pending
        /// Refused: the token is spent unused.
        case fail
    }

    /// The outcome of ``confirmThroughFunction(email:call:)`` and
    /// ``resetThroughFunction(email:newPassword:call:)`` other than a refusal. The caller answers
    /// all three alike (204), so that nothing tells whether the email is registered.
    public enum FunctionOutcome: Sendable, Hashable {
        /// No account to act on (unknown email; for a confirmation, also an account already
        /// confirmed). The function was still called, with a token that was never stored, and
        /// answered `success` or `pending`: nothing was done.
        case noAccount
        /// The function answered `pending`; its token stays usable until it expires.
        case pending
        /// Done: the account (for a reset, its email gets the notice; every session has ended).
        case completed(AccountRecord)
    }

    /// `confirm/call`: makes a confirmation token for the unconfirmed account of `email` and hands
    /// it to `call` (the app's function), whose verdict decides: `success` spends the token and
    /// confirms the account; `pending` leaves the token to the app; `fail` spends it unused.
    /// With no account to act on, `call` gets a token of the same shape that is never stored,
    /// and its verdict and errors are answered alike (see ``FunctionOutcome/noAccount``): the
    /// function's answer, not the store, decides what the client sees.
    /// - Throws: `invalid_email` for a malformed email, `function_refused` for `fail`, and whatever `call` throws (a `function_refused`
    ///   spends the token too; after any other error it stays usable until it expires),
    ///   `store_unavailable`.
    public func confirmThroughFunction(email: String, call: (AccountToken) async throws -> FunctionVerdict) async throws -> FunctionOutcome {
        try PasswordRule.checkEmail(email)
        let issued = try await issueConfirmation(email: email)
        let token = try issued ?? decoy(.confirm, email: email, lifetime: policy.confirmTokenLifetime)
        return try await decide(token, stored: issued != nil, refusal: "the confirmation function refused", call) {
            let accountID = try await confirm(token: token.token, tokenID: token.tokenID)
            guard let account = try await sessions.store.transaction({ tx in try await tx.account(id: accountID, forUpdate: false) }) else {
                throw TokenError(.userNotFound, "the account is gone")
            }
            return account
        }
    }

    /// `reset/call`: checks and hashes the new password (for an unknown email too: both cost one
    /// scrypt), makes a reset token for the account of `email` and hands it to `call`, whose
    /// verdict decides: `success` spends the token, sets the password, confirms the account and
    /// ends every session of the user (the caller mails the notice); `pending` leaves the token
    /// to the app, which completes it through ``resetPassword(token:tokenID:newPassword:)`` with
    /// a password of its own; `fail` spends it unused. With no account, `call` gets a token that
    /// is never stored, as in ``confirmThroughFunction(email:call:)``.
    /// - Throws: `invalid_email`, `invalid_password`, `too_many_requests` (hashing queue full), `function_refused`
    ///   for `fail` (and whatever `call` throws), `store_unavailable`.
    public func resetThroughFunction(
        email: String, newPassword: String,
        call: (AccountToken) async throws -> FunctionVerdict
    ) async throws -> FunctionOutcome {
        try PasswordRule.checkEmail(email)
        try PasswordRule.check(newPassword, minLength: policy.minPasswordLength)
        let hash = try await newPasswordHasher.hash(newPassword).encoded
        let issued = try await issueReset(email: email)
        let token = try issued ?? decoy(.reset, email: email, lifetime: policy.resetTokenLifetime)
        return try await decide(token, stored: issued != nil, refusal: "the password reset function refused", call) {
            try await resetPassword(token: token.token, tokenID: token.tokenID, hash: hash)
        }
    }

    /// Hands `token` to `call` and acts on the verdict: `success` runs `complete` (for a token
    /// that was `stored`; a decoy's success does nothing), `pending` leaves the token, `fail` is
    /// `function_refused` with `refusal` as its message.
    private func decide(
        _ token: AccountToken, stored: Bool, refusal: String, _ call: (AccountToken) async throws -> FunctionVerdict,
        complete: () async throws -> AccountRecord
    ) async throws -> FunctionOutcome {
        switch try await verdict(of: token, stored: stored, call) {
        case .pending: return stored ? .pending : .noAccount
        case .success: return stored ? .completed(try await complete()) : .noAccount
        case .fail: throw TokenError(.customFunctionRefused, refusal)
        }
    }

    /// The function's verdict; a refusal (`fail`, or `function_refused` from `call`: a 4xx)
    /// spends a `stored` token unused. Any other error of `call` leaves it to expire.
    private func verdict(
        of token: AccountToken, stored: Bool, _ call: (AccountToken) async throws -> FunctionVerdict
    ) async throws -> FunctionVerdict {
        let verdict: FunctionVerdict
        do { verdict = try await call(token) } catch let e as TokenError where e.code == .customFunctionRefused {
            if stored { try await discard(token) }
            throw e
        }
        if verdict == .fail && stored { try await discard(token) }
        return verdict
    }

    /// A token for an email with no account to act on: made as a real one is, never stored, so
    /// `confirm` and `reset` refuse it as `userpass_token_invalid`.
    private func decoy(_ purpose: AccountTokenRecord.Purpose, email: String, lifetime: Int64) throws -> AccountToken {
        try AccountToken.decoy(purpose: purpose, email: email, now: sessions.configuration.now, lifetime: lifetime)
    }

    /// Spends `token` without acting on it (the function refused): it cannot be used later.
    private func discard(_ token: AccountToken) async throws {
        let now = sessions.configuration.now
        let app = sessions.configuration.app
        _ = try await sessions.store.transaction { tx in
            try await tx.consumeOneTimeToken(purpose: token.purpose.oneTime, hash: OneTimeToken.hash(token.token), app: app, at: now)
        }
    }
}
