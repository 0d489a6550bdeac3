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

    /// Refreshes for whichever client the token's session belongs to, in one transaction: a
    /// server of several apps on one store (a manager each) learns the app from the session and
    /// refreshes with that app's manager and mode, without a lookup of its own first.
    ///
    /// ```swift
    /// let pair = try await anyApp.refresh(token) { clientID in  // apps: [String: SessionManager]
    ///     apps[clientID].map { RefreshIssuer($0, mode: rotating.contains(clientID) ? .rotate : .keep) }
    /// }
    /// ```
    /// - Parameter issuer: given the session's client id, the manager that issues for that
    ///   client and its mode; `nil` refuses the token as another client's (`invalid_grant`,
    ///   nothing spent or touched). It runs inside the transaction: keep it quick, without I/O.
    /// - Returns: the pair, issued by the chosen manager (``TokenPair/clientID`` names the client).
    /// - Throws: in `.rotate` mode as ``refresh(_:clientID:)``, in `.keep` mode as
    ///   ``refreshKeepingToken(_:)``; `invalid_grant` when `issuer` refuses.
    public func refresh(_ refreshToken: String, issuer: @Sendable (String) -> RefreshIssuer?) async throws -> TokenPair {
        try configuration.validate()
        guard RefreshToken.looksLikeRefreshToken(refreshToken) else {
            throw TokenError(
                .invalidRefreshToken,
                "a refresh token is 43 base64url characters; got \(refreshToken.utf8.count) bytes\(RefreshToken.shapeHint(refreshToken))")
        }
        let now = configuration.now
        let hash = RefreshToken.hash(refreshToken)

        // The active key is read in the same transaction (fewer round trips on PostgreSQL) and
        // first (the session's row lock, taken next, is then held for fewer statements); its
        // signer is made before anything is spent: a key that cannot sign (sealed, wrong master
        // key) rolls the rotation back instead of losing the successor.
        let (outcome, signer, chosen): (Outcome, JWTSigner?, SessionManager?) = try await store.transaction { tx in
            let active = try await tx.activeSigningKey()
            guard let token = try await tx.refreshToken(hash: hash),
                // Lock the session first: every rotation, revocation and deletion of this session
                // queues here (PostgreSQL row lock; SQLite serializes writers anyway).
                let session = try await tx.session(id: token.sessionID, forUpdate: true)
            else { return (.unknown, nil, nil) }
            guard let choice = issuer(session.clientID) else { return (.otherClient, nil, nil) }
            let manager = choice.sessions
            try manager.configuration.validate()
            let signer = try active.map { try manager.keyRing.signer(for: $0) }
            if let revokedAt = session.revokedAt { return (.revoked(session, revokedAt), nil, nil) }
            if now >= session.expiresAt || now >= session.idleExpiresAt { return (.expired(session), nil, nil) }
            if choice.mode == .keep, token.usedAt != nil { return (.spent, nil, nil) }
            let user = try await tx.user(id: session.userID)
            // A user belongs to one app: a session of its user in another app is not this app's.
            if let user, user.app != manager.configuration.app { return (.otherClient, nil, nil) }
            if user?.disabledAt != nil { return (.disabled, nil, nil) }
            if let active { try await manager.keyRing.recordUse(of: active, in: tx) }
            let outcome: Outcome
            switch choice.mode {
            case .keep: outcome = .refreshed(try await Self.touch(tx, session, now: now, idle: manager.configuration.refreshIdleLifetime), nil)
            case .rotate: outcome = try await manager.rotate(tx, token: token, session: session, refreshToken: refreshToken, now: now)
            }
            return (outcome, signer, manager)
        }

        switch outcome {
        case .unknown:
            throw TokenError(.invalidRefreshToken, "refresh token is not known to this store (never issued, or its session was purged)")
        case .otherClient:
            throw Self.otherClient()
        case .revoked(let session, let at):
            throw TokenError(
                .refreshTokenRevoked, "session was revoked at \(UTCTime.format(Double(at)))\(session.revokeReason.map { " (\($0))" } ?? "")")
        case .expired(let session):
            let end = min(session.expiresAt, session.idleExpiresAt)
            throw TokenError(
                .refreshTokenExpired, "session expired at \(UTCTime.format(Double(end)))\(session.idleExpiresAt < session.expiresAt ? " (idle)" : "")"
            )
        case .spent:
            throw TokenError(.refreshTokenReused, "refresh token was replaced by a rotation")
        case .reused:
            throw TokenError(.refreshTokenReused, "refresh token was already used; its session is now revoked")
        case .disabled:
            throw TokenError(.userDisabled, "the user is disabled")
        case .refreshed(let session, let token):
            let manager = chosen ?? self
            var usable = signer
            if usable == nil { usable = try manager.keyRing.signer(for: try await manager.keyRing.activeKey()) }  // a ring emptied by hand
            guard let usable else { throw TokenError(.storeUnavailable, "no signing key") }
            return try manager.makePair(refresh: token ?? refreshToken, session: session, signer: usable, now: now)
        }
    }

    /// Moves the session's idle end (a refresh of either mode), inside the transaction.
    private static func touch(_ tx: any SessionStoreTransaction, _ session: SessionRecord, now: Int64, idle: Int64) async throws -> SessionRecord {
        let idleEnd = min(now + idle, session.expiresAt)
        try await tx.touchSession(id: session.id, lastUsedAt: now, idleExpiresAt: idleEnd)
        var touched = session
        touched.lastUsedAt = now
        touched.idleExpiresAt = idleEnd
        return touched
    }

    /// The rotation itself, inside the transaction, of a live session of an enabled user.
    private func rotate(
        _ tx: any SessionStoreTransaction, token: RefreshTokenRecord, session: SessionRecord, refreshToken: String, now: Int64
    ) async throws -> Outcome {
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

    private enum Outcome: Sendable {
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
            try await revokeSession(id: record.sessionID, ownedBy: nil, clientID: clientID, reason: reason)
            return record.sessionID
        }
        let claims = try await verifyAccessToken(token, checkSession: false)
        guard let sid = claims.sessionID else { throw TokenError(.missingClaim, "access token has no sid", claim: "sid") }
        if let clientID, claims.clientID != clientID { throw Self.otherClient() }
        // Defence in depth: we sign sid and sub together, but a token naming another user's
        // session must not end it (a dead or purged session of its own still logs out).
        try await revokeSession(id: sid, ownedBy: claims.subject, clientID: clientID, reason: reason)
        return sid
    }

    static func otherClient() -> TokenError {
        TokenError(.invalidGrant, "the token was issued to another client_id")
    }

    /// Revokes a session by id; a no-op when it is already revoked.
    public func revokeSession(id: String, reason: String = "logout") async throws {
        try await revokeSession(id: id, ownedBy: nil, clientID: nil, reason: reason)
    }

    /// The revocation, in one transaction with the owner check when `ownedBy` is given
    /// (`session_revoked` when the session belongs to another user) and the client check when
    /// `clientID` is (`invalid_grant`).
    private func revokeSession(id: String, ownedBy userID: String?, clientID: String?, reason: String) async throws {
        guard Self.isStorableID(id, maxBytes: 255) else { return }  // no such session can exist
        let now = configuration.now
        try await store.transaction { tx in
            if userID != nil || clientID != nil, let session = try await tx.session(id: id, forUpdate: true) {
                if let userID, session.userID != userID {
                    throw TokenError(.sessionRevoked, "the session this access token names belongs to another user")
                }
                if let clientID, session.clientID != clientID { throw Self.otherClient() }
            }
            _ = try await tx.revokeSession(id: id, at: now, reason: reason)
        }
    }

    /// The sweep: removes sessions that are revoked or past a lifetime (with their refresh
    /// tokens) and retired keys no longer published, and erases the sealed successors of tokens
    /// spent more than the grace interval ago. Run it periodically (`tokentool token purge`).
    public func purge() async throws -> PurgeCounts {
        let now = configuration.now
        let spentBefore = now - configuration.reuseGraceInterval - 1
        return try await store.transaction { tx in
            var counts = try await tx.purge(now: now)
            counts.spentSuccessors = try await tx.clearSpentSuccessors(usedBefore: spentBefore)
            return counts
        }
    }
}
