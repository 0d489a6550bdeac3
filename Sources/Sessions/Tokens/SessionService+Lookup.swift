import JOSE

extension SessionService {
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
        guard SessionManager.isStorableID(id, maxBytes: 255) else { return nil }
        return try await store.read { tx in try await tx.session(id: id, forUpdate: false) }
    }
}

/// What a refresh token presented as a bearer (to the routes it opens, not to be refreshed) proves.
public enum RefreshBearer: Sendable, Hashable {
    /// The current token of a live session: the only one that opens anything.
    case live(SessionRecord)
    /// The token's session has ended (revoked, expired or idle); nothing was changed.
    case ended(SessionRecord)
    /// A spent (rotated) token of a live session: reuse, as at a refresh; the session is now
    /// revoked (reason `reuse`), whatever the grace interval (which only a refresh honours).
    case reused(SessionRecord)
    /// Not a token this store knows (never issued, or its session was purged).
    case unknown
}

extension SessionService {
    /// Authenticates a refresh token used as a bearer. A spent token presented this way is reuse:
    /// its session is revoked as a refresh with it would revoke it, so that a stolen old token
    /// opens nothing and ends the session it was stolen from.
    /// - Throws: `store_unavailable`.
    public func bearer(refreshToken token: String) async throws -> RefreshBearer {
        guard RefreshToken.looksLikeRefreshToken(token) else { return .unknown }
        let hash = RefreshToken.hash(token)
        let now = configuration.now
        let found: (RefreshTokenRecord, SessionRecord)? = try await store.read { tx in
            guard let record = try await tx.refreshToken(hash: hash), let session = try await tx.session(id: record.sessionID, forUpdate: false)
            else { return nil }
            return (record, session)
        }
        guard let (record, session) = found else { return .unknown }
        guard session.isLive(at: now) else { return .ended(session) }
        guard record.usedAt != nil else { return .live(session) }
        try await store.transaction { tx in _ = try await tx.revokeSession(id: session.id, at: now, reason: "reuse") }
        return .reused(session)
    }
}
