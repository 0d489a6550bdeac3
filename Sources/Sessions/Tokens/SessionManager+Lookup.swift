import JOSE

extension SessionManager {
    /// The session a refresh token belongs to, whether the token is current or spent and
    /// the session live or not; `nil` for a token this store does not know.
    /// - Throws: `store_unavailable`.
    public func session(ofRefreshToken token: String) async throws -> SessionRecord? {
        guard RefreshToken.looksLikeRefreshToken(token) else { return nil }
        let hash = RefreshToken.hash(token)
        return try await store.read { tx in
            guard let record = try await tx.refreshToken(hash: hash) else { return nil }
            return try await tx.session(id: record.sessionID, forUpdate: false)
        }
    }

    /// A session by id; `nil` when unknown or purged.
    public func session(id: String) async throws -> SessionRecord? {
        guard Self.isStorableID(id, maxBytes: 255) else { return nil }
        return try await store.read { tx in try await tx.session(id: id, forUpdate: false) }
    }
}
