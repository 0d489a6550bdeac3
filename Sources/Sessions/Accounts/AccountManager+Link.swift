import JOSE

extension AccountManager {
    /// The user an account signs in as, in one transaction that locks the account: its user;
    /// for an account without one (its first login), a new user of the app whose id is the
    /// account's. With `target` (a link: Realm's anonymous user upgraded to email/password), the
    /// account joins that user of the app instead, once; linking it again to the same user is
    /// not an error. Joining adds the user's `local-userpass` identity (the email).
    /// - Throws: `identity_in_use` when the account belongs to another user or `target` already
    ///   has an account; `user_not_found` for a `target` of another app; `login_failed` for an
    ///   account deleted meanwhile; `store_unavailable`.
    public func user(of account: AccountRecord, linkingTo target: String? = nil) async throws -> String {
        let app = sessions.configuration.app, now = sessions.configuration.now, provider = policy.provider
        return try await sessions.store.transaction { tx in
            guard let current = try await tx.account(id: account.id, forUpdate: true) else {
                throw TokenError(.loginFailed, "the email or the password is wrong")
            }
            let userID: String
            if let target {
                if current.userID == target { return target }
                guard current.userID == nil else { throw TokenError(.identityInUse, "the email/password account already belongs to another user") }
                guard try await tx.user(id: target)?.app == app else { throw TokenError(.userNotFound, "no user has that id") }
                guard try await tx.account(userID: target) == nil else {
                    throw TokenError(.identityInUse, "the user already has an email/password account")
                }
                userID = target
            } else {
                if let owner = current.userID { return owner }
                userID = current.id
                try await tx.insertUser(UserRecord(id: userID, createdAt: now, app: app))
            }
            let identity = IdentityRecord(
                provider: provider, subject: current.email, userID: userID, email: current.email, emailVerified: current.confirmedAt != nil,
                createdAt: now, app: app)
            guard try await tx.insertIdentity(identity), try await tx.setAccountUser(id: current.id, userID: userID) else {
                throw TokenError(.identityInUse, "the email/password identity already belongs to another user")
            }
            return userID
        }
    }
}
