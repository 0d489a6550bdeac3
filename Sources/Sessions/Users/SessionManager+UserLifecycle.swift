import JOSE

extension SessionManager {
    /// Disables (no sign-in, no refresh; access tokens refused by live checks) or enables a user.
    /// - Throws: `user_not_found`, `store_unavailable`.
    public func setUserDisabled(id: String, _ disabled: Bool) async throws {
        guard Self.isStorableID(id, maxBytes: 255) else { throw TokenError(.userNotFound, "no user has that id") }
        let now = configuration.now
        let found = try await store.transaction { tx in try await tx.setUserDisabled(id: id, at: disabled ? now : nil) }
        guard found else { throw TokenError(.userNotFound, "no user has id \"\(id.prefix(64))\"") }
    }

    /// Deletes users whose only identities are of `provider` and who have not used a session for
    /// `idleSeconds` (anonymous users idle for 90 days), at most `limit` per call.
    /// - Returns: how many were deleted.
    public func removeIdleUsers(onlyProvider provider: String, idleSeconds: Int64, limit: Int = 500) async throws -> Int {
        let before = configuration.now - idleSeconds
        let ids = try await store.transaction { tx in try await tx.idleUsers(onlyProvider: provider, before: before, limit: limit) }
        var removed = 0
        for id in ids {
            do {
                try await deleteUser(id: id)
                removed += 1
            } catch let e as TokenError where e.code == .userNotFound {
                continue  // deleted meanwhile
            }
        }
        return removed
    }
}
