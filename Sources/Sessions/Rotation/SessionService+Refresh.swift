import JOSE

extension SessionService {
    /// Refreshes for whichever client the token's session belongs to, in one transaction: a
    /// server of several apps on one service (a manager each) learns the app from the session and
    /// refreshes with that app's manager and mode, without a lookup of its own first.
    ///
    /// ```swift
    /// let pair = try await service.refresh(token) { clientID in  // apps: [String: SessionManager]
    ///     apps[clientID].map { RefreshIssuer($0, mode: rotating.contains(clientID) ? .rotate : .keep) }
    /// }
    /// ```
    /// - Parameter issuer: given the session's client id, the manager that issues for that
    ///   client and its mode; `nil` refuses the token as another client's (`invalid_grant`,
    ///   nothing spent or touched). It runs inside the transaction: keep it quick, without I/O.
    /// - Returns: the pair, issued by the chosen manager (``TokenPair/clientID`` names the client).
    /// - Throws: in `.rotate` mode as ``SessionManager/refresh(_:clientID:)``, in `.keep` mode as
    ///   ``SessionManager/refreshKeepingToken(_:)``; `invalid_grant` when `issuer` refuses.
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
        let (outcome, signer, chosen): (RefreshOutcome, JWTSigner?, SessionManager?) = try await store.transaction { tx in
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
            if let active { try await manager.keyRing.recordUse(of: active, lifetime: manager.configuration.accessTokenLifetime, in: tx) }
            let outcome: RefreshOutcome
            switch choice.mode {
            case .keep:
                outcome = .refreshed(try await SessionManager.touch(tx, session, now: now, idle: manager.configuration.refreshIdleLifetime), nil)
            case .rotate: outcome = try await manager.rotate(tx, token: token, session: session, refreshToken: refreshToken, now: now)
            }
            return (outcome, signer, manager)
        }

        switch outcome {
        case .unknown:
            throw TokenError(.invalidRefreshToken, "refresh token is not known to this store (never issued, or its session was purged)")
        case .otherClient:
            throw SessionManager.otherClient()
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
            guard let manager = chosen else { throw TokenError(.storeUnavailable, "no manager chose to refresh") }
            var usable = signer
            if usable == nil { usable = try manager.keyRing.signer(for: try await manager.keyRing.activeKey()) }  // a ring emptied by hand
            guard let usable else { throw TokenError(.storeUnavailable, "no signing key") }
            return try manager.makePair(refresh: token ?? refreshToken, session: session, signer: usable, now: now)
        }
    }

    /// Revokes every live session issued through the OP session `opSessionID` (an OpenID Connect
    /// logout). - Returns: how many.
    /// - Throws: `store_unavailable`.
    @discardableResult
    public func revokeSessions(opSessionID: String, reason: String = "logout") async throws -> Int {
        let now = configuration.now
        return try await store.transaction { tx in try await tx.revokeSessions(opSessionID: opSessionID, at: now, reason: reason) }
    }

    /// Revokes a session by id; a no-op when it is already revoked.
    public func revokeSession(id: String, reason: String = "logout") async throws {
        try await revokeSession(id: id, ownedBy: nil, clientID: nil, reason: reason)
    }

    /// The revocation, in one transaction with the owner check when `ownedBy` is given
    /// (`session_revoked` when the session belongs to another user) and the client check when
    /// `clientID` is (`invalid_grant`).
    func revokeSession(id: String, ownedBy userID: String?, clientID: String?, reason: String) async throws {
        guard SessionManager.isStorableID(id, maxBytes: 255) else { return }  // no such session can exist
        let now = configuration.now
        try await store.transaction { tx in
            if userID != nil || clientID != nil, let session = try await tx.session(id: id, forUpdate: true) {
                if let userID, session.userID != userID {
                    throw TokenError(.sessionRevoked, "the session this access token names belongs to another user")
                }
                if let clientID, session.clientID != clientID { throw SessionManager.otherClient() }
            }
            _ = try await tx.revokeSession(id: id, at: now, reason: reason)
        }
    }
}
