import JOSE

extension SessionManager {
    /// Refresh without rotation (Realm clients never store a new refresh token): a new access
    /// token for the same session, the same refresh token living on. The token must be the
    /// session's current one, the session live and its user enabled; each use moves the idle end.
    /// - Throws: `invalid_refresh_token`, `refresh_token_reused` (a spent token; the session is
    ///   left alone), `refresh_token_revoked`, `refresh_token_expired`, `user_disabled`, `store_unavailable`.
    public func refreshKeepingToken(_ refreshToken: String) async throws -> TokenPair {
        try configuration.validate()
        guard RefreshToken.looksLikeRefreshToken(refreshToken) else {
            throw TokenError(.invalidRefreshToken, "a refresh token is 43 base64url characters\(RefreshToken.shapeHint(refreshToken))")
        }
        let now = configuration.now
        let hash = RefreshToken.hash(refreshToken)
        let idle = configuration.refreshIdleLifetime
        let keyRing = self.keyRing
        let (session, signer): (SessionRecord, JWTSigner) = try await store.transaction { tx in
            // The key first: the session's row lock, taken next, is then held for fewer statements.
            guard let key = try await tx.activeSigningKey() else { throw TokenError(.storeUnavailable, "no signing key") }
            guard let token = try await tx.refreshToken(hash: hash), let session = try await tx.session(id: token.sessionID, forUpdate: true) else {
                throw TokenError(.invalidRefreshToken, "refresh token is not known to this store")
            }
            if session.revokedAt != nil { throw TokenError(.refreshTokenRevoked, "session was revoked") }
            if now >= session.expiresAt || now >= session.idleExpiresAt { throw TokenError(.refreshTokenExpired, "session expired") }
            if token.usedAt != nil { throw TokenError(.refreshTokenReused, "refresh token was replaced by a rotation") }
            if try await tx.user(id: session.userID)?.disabledAt != nil { throw TokenError(.userDisabled, "the user is disabled") }
            let idleEnd = min(now + idle, session.expiresAt)
            try await tx.touchSession(id: session.id, lastUsedAt: now, idleExpiresAt: idleEnd)
            var touched = session
            touched.lastUsedAt = now
            touched.idleExpiresAt = idleEnd
            return (touched, try keyRing.signer(for: key))
        }
        return try makePair(refresh: refreshToken, session: session, signer: signer, now: now)
    }

    /// A new access token for a live session of `userID` (after linking an identity: the session
    /// goes on, its refresh token unchanged).
    /// - Throws: `session_revoked` when the session is not live or not the user's; `user_disabled`.
    public func accessToken(forSession sessionID: String, userID: String) async throws -> String {
        let now = configuration.now
        let keyRing = self.keyRing
        let (session, signer): (SessionRecord, JWTSigner) = try await store.transaction { tx in
            guard let session = try await tx.session(id: sessionID, forUpdate: false), session.isLive(at: now), session.userID == userID else {
                throw TokenError(.sessionRevoked, "the session is not live")
            }
            if try await tx.user(id: userID)?.disabledAt != nil { throw TokenError(.userDisabled, "the user is disabled") }
            guard let key = try await tx.activeSigningKey() else { throw TokenError(.storeUnavailable, "no signing key") }
            return (session, try keyRing.signer(for: key))
        }
        return try makePair(refresh: "", session: session, signer: signer, now: now).accessToken
    }

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

    /// Keeps a provider token (Apple's refresh token) with an identity, sealed under the master key.
    /// - Throws: `invalid_configuration` without a master key; `store_unavailable`.
    public func keepProviderToken(_ token: String, provider: String, subject: String) async throws {
        guard let master = configuration.masterKey else { throw TokenError(.invalidConfiguration, "a master key is needed to keep provider tokens") }
        let sealed = Base64URL.encode(try AESGCM.seal(Array(token.utf8), key: master, authenticating: Array("\(provider)\u{0}\(subject)".utf8)))
        try await store.transaction { tx in try await tx.setSealedProviderToken(provider: provider, subject: subject, sealed: sealed) }
    }

    /// The provider tokens kept for a user's identities, unsealed: `(provider, token)` pairs.
    public func providerTokens(of userID: String) async throws -> [(provider: String, token: String)] {
        guard let master = configuration.masterKey else { return [] }
        return try await identities(of: userID).compactMap { i in
            guard let sealed = i.sealedProviderToken, let box = try? Base64URL.decode(sealed, what: "sealed token"),
                let plain = try? AESGCM.open(box, key: master, authenticating: Array("\(i.provider)\u{0}\(i.subject)".utf8))
            else { return nil }
            return (i.provider, String(decoding: plain, as: UTF8.self))
        }
    }
}
