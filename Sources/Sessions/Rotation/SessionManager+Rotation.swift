import JOSE

/// What a refresh does with the refresh token it is given.
public enum RefreshMode: Sendable, Hashable {
    /// Spend the token and hand out its successor, with reuse detection: ``SessionManager/refresh(_:clientID:)``.
    case rotate
    /// Keep the token: a new access token in the same session, the refresh token living on
    /// (Realm clients never store a new one): ``SessionManager/refreshKeepingToken(_:)``.
    case keep
}

/// Who issues a refreshed pair: the manager of the session's client (its issuer, audience,
/// lifetimes and grace) and how it refreshes. ``SessionManager/refresh(_:issuer:)`` asks for it
/// once the token's session, and so its client, is known.
public struct RefreshIssuer: Sendable {
    public var sessions: SessionManager
    public var mode: RefreshMode

    public init(_ sessions: SessionManager, mode: RefreshMode) {
        self.sessions = sessions
        self.mode = mode
    }
}

extension SessionManager {
    /// Spends `refreshToken` and returns a new pair in the same session.
    ///
    /// - One conditional update spends the token; of any number of concurrent calls with one
    ///   token exactly one rotates it.
    /// - A spent token presented again revokes the whole session (`refresh_token_reused`), unless
    ///   it is the session's newest spent token, its successor is still unused, and the
    ///   rotation happened at most ``SessionConfiguration/reuseGraceInterval`` seconds ago:
    ///   then the same successor is returned (a client retrying a lost response).
    /// - A revoked session stays revoked, whatever the timing.
    /// - With `clientID`, the token must belong to a session of that client: a token of one app
    ///   never refreshes in another (`invalid_grant`, nothing spent; RFC 6749 §6).
    ///
    /// - Throws: `invalid_refresh_token` (unknown), `invalid_grant` (another client's token),
    ///   `refresh_token_reused`, `refresh_token_revoked`, `refresh_token_expired`, `user_disabled`,
    ///   `invalid_configuration`, `store_unavailable`.
    public func refresh(_ refreshToken: String, clientID: String? = nil) async throws -> TokenPair {
        try await refresh(refreshToken) { client in clientID == nil || client == clientID ? RefreshIssuer(self, mode: .rotate) : nil }
    }

    /// Refresh without rotation (Realm clients never store a new refresh token): a new access
    /// token for the same session, the same refresh token living on. The token must be the
    /// session's current one, the session live and its user enabled; each use moves the idle end.
    /// - Throws: `invalid_refresh_token`, `refresh_token_reused` (a spent token; the session is
    ///   left alone), `refresh_token_revoked`, `refresh_token_expired`, `user_disabled`, `store_unavailable`.
    public func refreshKeepingToken(_ refreshToken: String) async throws -> TokenPair {
        try await refresh(refreshToken) { _ in RefreshIssuer(self, mode: .keep) }
    }

    /// Refreshes for whichever client the token's session belongs to:
    /// ``SessionService/refresh(_:issuer:)`` of this manager's service, once this manager's
    /// configuration is checked.
    /// - Throws: as ``SessionService/refresh(_:issuer:)``.
    public func refresh(_ refreshToken: String, issuer: @Sendable (String) -> RefreshIssuer?) async throws -> TokenPair {
        try configuration.validate()
        return try await service.refresh(refreshToken, issuer: issuer)
    }

    /// Moves the session's idle end (a refresh of either mode), inside the transaction.
    static func touch(_ tx: any SessionStoreTransaction, _ session: SessionRecord, now: Int64, idle: Int64) async throws -> SessionRecord {
        let idleEnd = min(now + idle, session.expiresAt)
        try await tx.touchSession(id: session.id, lastUsedAt: now, idleExpiresAt: idleEnd)
        var touched = session
        touched.lastUsedAt = now
        touched.idleExpiresAt = idleEnd
        return touched
    }

    /// The rotation itself, inside the transaction, of a live session of an enabled user.
    func rotate(
        _ tx: any SessionStoreTransaction, token: RefreshTokenRecord, session: SessionRecord, refreshToken: String, now: Int64
    ) async throws -> RefreshOutcome {
        let hash = token.hash
        let successor = try RefreshToken.generate()
        let sealed = try RefreshToken.sealSuccessor(successor, predecessor: refreshToken, sessionID: session.id)
        if try await tx.spendRefreshToken(hash: hash, at: now, successorHash: RefreshToken.hash(successor), sealedSuccessor: sealed) {
            try hooks.checkAfterSpend()
            try await tx.insertRefreshToken(
                RefreshTokenRecord(
                    hash: RefreshToken.hash(successor), sessionID: session.id,
                    parentHash: hash, createdAt: now))
            return .refreshed(try await Self.touch(tx, session, now: now, idle: configuration.refreshIdleLifetime), successor)
        }

        // Spent already (before, or by a concurrent call that won): the grace rule or revocation.
        guard let spent = try await tx.refreshToken(hash: hash), let usedAt = spent.usedAt else {
            throw TokenError(.storeUnavailable, "refresh token changed state during rotation")
        }
        let grace = configuration.reuseGraceInterval
        if grace > 0, now - usedAt <= grace, let successorHash = spent.successorHash, let box = spent.sealedSuccessor,
            let next = try await tx.refreshToken(hash: successorHash), next.usedAt == nil,
            let again = RefreshToken.openSuccessor(box, predecessor: refreshToken, sessionID: session.id)
        {
            return .refreshed(session, again)
        }
        _ = try await tx.revokeSession(id: session.id, at: now, reason: "reuse")
        return .reused
    }

    /// Logout: revokes the session of a refresh token (current or spent) or of an access token's `sid`.
    /// Revoking an already revoked session succeeds.
    /// - Parameter clientID: when given, the token's session must belong to that client
    ///   (`invalid_grant` otherwise, nothing revoked): one app cannot log out another's sessions.
    /// - Throws: `invalid_refresh_token` for an unknown refresh token; access-token verification
    ///   codes for a bad access token; `session_revoked` for an access token whose `sid` names
    ///   another user's session; `invalid_grant`; `store_unavailable`.
    /// - Returns: the session id.
    @discardableResult
    public func revoke(_ token: String, clientID: String? = nil, reason: String = "logout") async throws -> String {
        if RefreshToken.looksLikeRefreshToken(token) {
            let hash = RefreshToken.hash(token)
            guard let record = try await store.transaction({ tx in try await tx.refreshToken(hash: hash) }) else {
                throw TokenError(.invalidRefreshToken, "refresh token is not known to this store")
            }
            try await service.revokeSession(id: record.sessionID, ownedBy: nil, clientID: clientID, reason: reason)
            return record.sessionID
        }
        let claims = try await verifyAccessToken(token, checkSession: false)
        guard let sid = claims.sessionID else { throw TokenError(.missingClaim, "access token has no sid", claim: "sid") }
        if let clientID, claims.clientID != clientID { throw Self.otherClient() }
        // Defence in depth: we sign sid and sub together, but a token naming another user's
        // session must not end it (a dead or purged session of its own still logs out).
        try await service.revokeSession(id: sid, ownedBy: claims.subject, clientID: clientID, reason: reason)
        return sid
    }

    static func otherClient() -> TokenError {
        TokenError(.invalidGrant, "the token was issued to another client_id")
    }

    /// Revokes a session by id; a no-op when it is already revoked.
    public func revokeSession(id: String, reason: String = "logout") async throws {
        try await service.revokeSession(id: id, reason: reason)
    }

    /// The sweep of ``SessionService/sweep(grace:)`` with this app's grace interval: the sealed
    /// successors of tokens spent more than ``SessionConfiguration/reuseGraceInterval`` seconds
    /// ago are erased. Run it periodically (`tokentool token purge`); a store of several apps is
    /// swept by its service with the largest grace of any app.
    public func purge() async throws -> PurgeCounts {
        try await service.sweep(grace: configuration.reuseGraceInterval)
    }
}

/// How a refresh ended, inside its transaction.
enum RefreshOutcome: Sendable {
    case unknown
    case otherClient
    case revoked(SessionRecord, Int64)
    case expired(SessionRecord)
    /// A spent token given to a non-rotating refresh (the session is left alone).
    case spent
    /// A spent token given to a rotation: the session is revoked.
    case reused
    case disabled
    /// The session as refreshed, and the successor token (`nil`: the same token lives on).
    case refreshed(SessionRecord, String?)
}
