import Foundation
import JOSE

extension AccountManager {
    /// The outcome of ``login(email:password:failureLimit:linkingTo:)`` other than an error.
    public enum Login: Sendable, Hashable {
        /// The password is right; issue tokens for `userID`.
        case success(userID: String)
        /// Too many failures for this email (as typed, normalised): refused, the right password
        /// too, for `retryAfter` seconds.
        case throttled(retryAfter: Int64)
    }

    /// Checks an email and a password. Unknown emails are checked against a dummy hash, so a
    /// failure takes as long either way; a hash with weaker parameters than the policy's is
    /// replaced by a new one. With `failureLimit`, failures are counted per email (registered or
    /// not, so the limit tells nothing) under the key `fail_acct:<email key>`, and while the limit
    /// is reached every attempt is refused without checking the password. The account's first
    /// login creates its user; with `linkingTo`, the account joins that user instead (see
    /// ``user(of:linkingTo:)``).
    /// - Throws: `login_failed` (the email or the password is wrong), `email_not_confirmed` (only
    ///   after the right password), `identity_in_use` (linking an account another user has),
    ///   `too_many_requests` (hashing queue full), `store_unavailable`.
    public func login(email: String, password: String, failureLimit: RateLimit? = nil, linkingTo target: String? = nil) async throws -> Login {
        let failed = TokenError(.loginFailed, "the email or the password is wrong")
        // Bounded before any work; the key is what the limit counts, whatever the shape of the email.
        guard email.utf8.count <= PasswordRule.maxEmailBytes, password.utf8.count <= 4 * PasswordRule.maxLength else { throw failed }
        let key = PasswordRule.emailKey(email)
        let app = sessions.configuration.app
        // Per app, as the account is: failures in one app never lock the same email in another.
        let throttleKey = "fail_acct:" + app + ":" + key
        if let failureLimit, case .refused(let after) = try await throttle.check(throttleKey, limit: failureLimit) {
            return .throttled(retryAfter: after)
        }
        let account = try await sessions.store.transaction { tx in try await tx.account(app: app, emailKey: key) }
        let stored = account.flatMap { try? PasswordHash(parsing: $0.passwordHash) }
        let ok = if let stored { try await hasher.verify(password, against: stored) } else { try await hasher.verifyDummy(password) }
        guard ok, let account, let stored else {
            if let failureLimit { _ = try await throttle.hit(throttleKey, limit: failureLimit) }
            throw failed
        }
        guard account.confirmedAt != nil || policy.autoConfirm else { throw TokenError(.emailNotConfirmed, "confirm your email first") }
        if stored.needsRehash(for: hasher.parameters) {
            let upgraded = try await hasher.hash(password).encoded
            // Only over the hash just checked: a concurrent reset wins.
            _ = try await sessions.store.transaction { tx in
                try await tx.updatePasswordHash(accountID: account.id, hash: upgraded, expected: account.passwordHash)
            }
        }
        return .success(userID: try await user(of: account, linkingTo: target))
    }
}

extension AccountManager {
    /// Why a confirm or reset link failed, for the hosted pages only (the API answers
    /// `userpass_token_invalid` for all): whoever holds the token may learn whether it was used
    /// or expired, and nothing about any other.
    public enum LinkProblem: String, Sendable, Hashable {
        case invalid, used, expired
    }

    /// What is wrong with a token that ``confirm(token:tokenID:)`` or
    /// ``resetPassword(token:tokenID:newPassword:)`` refused; `invalid` for one that is unknown,
    /// of the other kind or whose id does not match.
    public func linkProblem(token: String, tokenID: String, purpose: AccountTokenRecord.Purpose) async throws -> LinkProblem {
        guard let record = try await tokenRecord(token: token, tokenID: tokenID, purpose: purpose) else { return .invalid }
        if record.usedAt != nil { return .used }
        return record.expiresAt <= sessions.configuration.now ? .expired : .invalid
    }

    /// The stored token of `purpose` whose hash and id these are (used or not, expired or not),
    /// read without spending it; `nil` for any other.
    func tokenRecord(token: String, tokenID: String, purpose: AccountTokenRecord.Purpose) async throws -> AccountTokenRecord? {
        guard (1...128).contains(token.utf8.count), (1...128).contains(tokenID.utf8.count) else { return nil }
        let app = sessions.configuration.app
        let found = try await sessions.store.transaction { tx -> AccountTokenRecord? in
            guard let stored = try await tx.lookUpOneTimeToken(token, purpose: purpose.oneTime, app: app), let record = AccountTokenRecord(stored),
                try await tx.account(id: record.accountID, forUpdate: false)?.app == app
            else { return nil }
            return record
        }
        guard let record = found, ConstantTime.equals(Array(record.tokenID.utf8), Array(tokenID.utf8)) else { return nil }
        return record
    }
}
