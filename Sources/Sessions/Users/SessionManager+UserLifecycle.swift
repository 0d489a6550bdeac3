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
}
