import JOSE

extension SessionManager {
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
            guard let user = try await tx.user(id: userID), user.app == configuration.app else {
                throw TokenError(.sessionRevoked, "the session is not live")
            }
            if user.disabledAt != nil { throw TokenError(.userDisabled, "the user is disabled") }
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

    /// Keeps a provider token (Apple's refresh token) with an identity of this manager's app, sealed under the master key.
    /// - Throws: `invalid_configuration` without a master key; `store_unavailable`.
    public func keepProviderToken(_ token: String, provider: String, subject: String) async throws {
        guard let master = configuration.masterKey else { throw TokenError(.invalidConfiguration, "a master key is needed to keep provider tokens") }
        let sealed = try Sealer.seal(Array(token.utf8), key: master, purpose: .providerToken, context: [provider, subject])
        let app = configuration.app
        try await store.transaction { tx in try await tx.setSealedProviderToken(app: app, provider: provider, subject: subject, sealed: sealed) }
    }

    /// The provider tokens kept for a user's identities, unsealed: `(provider, token)` pairs.
    public func providerTokens(of userID: String) async throws -> [(provider: String, token: String)] {
        guard let master = configuration.masterKey else { return [] }
        return try await identities(of: userID).compactMap { i in
            guard let sealed = i.sealedProviderToken,
                let plain = try? Sealer.open(sealed, key: master, purpose: .providerToken, context: [i.provider, i.subject])
            else { return nil }
            return (i.provider, String(decoding: plain, as: UTF8.self))
        }
    }
}
