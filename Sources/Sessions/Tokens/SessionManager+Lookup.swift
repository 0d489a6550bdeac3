import JOSE

extension SessionManager {
    /// The session (family) a refresh token belongs to, whether the token is current or spent and
    /// the family live or not; `nil` for a token this store does not know.
    /// - Throws: `store_unavailable`.
    public func family(ofRefreshToken token: String) async throws -> FamilyRecord? {
        guard RefreshToken.looksLikeRefreshToken(token) else { return nil }
        let hash = RefreshToken.hash(token)
        return try await store.transaction { tx in
            guard let record = try await tx.refreshToken(hash: hash) else { return nil }
            return try await tx.family(id: record.familyID, forUpdate: false)
        }
    }

    /// A session by id; `nil` when unknown or purged.
    public func family(id: String) async throws -> FamilyRecord? {
        guard Self.isStorableID(id, maxBytes: 255) else { return nil }
        return try await store.transaction { tx in try await tx.family(id: id, forUpdate: false) }
    }
}
