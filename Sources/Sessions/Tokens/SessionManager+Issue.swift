import JOSE

/// Who an OpenID Connect session is of, as its authorization code says: the user, the session's
/// id (chosen with the code) and the sign-in.
public struct SessionGrant: Sendable, Hashable {
    public var userID: String
    public var sessionID: String
    public var signIn: SessionSignIn

    public init(userID: String, sessionID: String, signIn: SessionSignIn) {
        self.userID = userID
        self.sessionID = sessionID
        self.signIn = signIn
    }
}

extension SessionManager {
    /// Issues a token pair in a new session (one sign-in on one device) for an existing user.
    /// - Parameter device: the client's device details as JSON, kept with the session (at most 4 KiB).
    /// - Throws: `user_not_found` (also for a user of another app), `user_disabled`, `invalid_input` (a client id that is empty, too long or
    ///   holds control characters; device details over 4 KiB), `invalid_configuration`, `store_unavailable`.
    /// - Parameter apiKeyID: the API key whose login this is: the session ends with the key.
    /// - Parameter signIn: when and how the user signed in (`auth_time`, `amr`), kept by the session
    ///   and repeated in its access tokens, refreshed ones included.
    public func issueTokens(
        userID: String, clientID: String? = nil, device: String? = nil, apiKeyID: String? = nil, signIn: SessionSignIn? = nil
    ) async throws -> TokenPair {
        try await issueTokens(clientID: clientID, device: device, apiKeyID: apiKeyID) { _ in (userID, nil, signIn, ()) }.pair
    }

    /// Issues a token pair in a new session of an OpenID Connect sign-in: the session gets the id
    /// `sessionID` (chosen when the authorization code was issued, so that a second use of the
    /// code can end it) and `signIn` (its OP session, `auth_time`, `amr` and scopes); the access
    /// token carries `client_id` = `clientID` and `scope`.
    /// - Throws: as ``issueTokens(userID:clientID:device:apiKeyID:signIn:)``; `invalid_input` for a session id
    ///   that is empty, too long or holds control characters.
    public func issueTokens(userID: String, clientID: String, sessionID: String, signIn: SessionSignIn) async throws -> TokenPair {
        try await issueTokens(clientID: clientID) { _ in (SessionGrant(userID: userID, sessionID: sessionID, signIn: signIn), ()) }.pair
    }

    /// Issues a token pair in a new session of an OpenID Connect sign-in whose user, id and
    /// sign-in `redeem` reads (an authorization code's redemption) in the same store transaction
    /// as the session's creation: both commit together, so whoever finds the code used finds the
    /// session it started (and can end it). `redeem` throwing rolls both back and issues nothing.
    /// - Returns: the pair, and what `redeem` returned beside the grant.
    /// - Throws: whatever `redeem` throws; as ``issueTokens(userID:clientID:sessionID:signIn:)``.
    public func issueTokens<Redeemed: Sendable>(
        clientID: String, redeeming redeem: @escaping @Sendable (any SessionStoreTransaction) async throws -> (SessionGrant, Redeemed)
    ) async throws -> (pair: TokenPair, redeemed: Redeemed) {
        try await issueTokens(clientID: clientID, device: nil, apiKeyID: nil) { tx in
            let (grant, redeemed) = try await redeem(tx)
            guard Self.isStorableID(grant.sessionID, maxBytes: 255) else {
                throw TokenError(.invalidInput, "session id must be 1…255 bytes without control characters")
            }
            return (grant.userID, grant.sessionID, grant.signIn, redeemed)
        }
    }

    /// The session's user, id and sign-in are read by `who` inside the transaction that stores it.
    private func issueTokens<Extra: Sendable>(
        clientID: String?, device: String?, apiKeyID: String?,
        who:
            @escaping @Sendable (any SessionStoreTransaction) async throws -> (
                userID: String, sessionID: String?, signIn: SessionSignIn?, extra: Extra
            )
    ) async throws -> (pair: TokenPair, redeemed: Extra) {
        try configuration.validate()
        if let clientID, !Self.isStorableID(clientID, maxBytes: 255) {
            throw TokenError(.invalidInput, "client id must be 1…255 bytes without control characters")
        }
        if let device, device.utf8.count > 4096 { throw TokenError(.invalidInput, "device details must be at most 4096 bytes") }
        let key = try await keyRing.activeKey()
        let signer = try keyRing.signer(for: key)
        let now = configuration.now
        let client = clientID ?? configuration.defaultClientID
        let refresh = try RefreshToken.generate()
        let newID = try RandomID.make()
        let (keyRing, lifetime, configuration) = (self.keyRing, configuration.accessTokenLifetime, self.configuration)
        let (session, extra): (SessionRecord, Extra) = try await store.transaction { tx in
            let (userID, sessionID, signIn, extra) = try await who(tx)
            guard Self.isStorableID(userID, maxBytes: 255), let user = try await tx.user(id: userID), user.app == configuration.app else {
                throw TokenError(.userNotFound, "no user has id \"\(userID.prefix(64))\"")
            }
            guard user.disabledAt == nil else { throw TokenError(.userDisabled, "the user is disabled") }
            let session = SessionRecord(
                id: sessionID ?? newID, userID: userID, clientID: client, createdAt: now,
                expiresAt: now + configuration.refreshAbsoluteLifetime,
                idleExpiresAt: now + min(configuration.refreshIdleLifetime, configuration.refreshAbsoluteLifetime),
                lastUsedAt: now, device: device, apiKeyID: apiKeyID, signIn: signIn)
            try await keyRing.recordUse(of: key, lifetime: lifetime, in: tx)
            try await tx.insertSession(session)
            try await tx.insertRefreshToken(RefreshTokenRecord(hash: RefreshToken.hash(refresh), sessionID: session.id, createdAt: now))
            return (session, extra)
        }
        return (try makePair(refresh: refresh, session: session, signer: signer, now: now), extra)
    }

    func makePair(refresh: String, session: SessionRecord, signer: JWTSigner, now: Int64) throws -> TokenPair {
        let claims = AccessTokenClaims(
            issuer: configuration.issuer, subject: session.userID, audience: [configuration.audience],
            expiresAt: now + configuration.accessTokenLifetime, issuedAt: now, jwtID: try RandomID.make(),
            clientID: session.clientID, sessionID: session.id, deviceID: session.deviceID,
            scope: session.signIn?.columns.scope, amr: session.signIn?.amr, acr: session.signIn?.acr)
        let access = try signer.sign(claims.claimSet)
        return TokenPair(
            accessToken: access, refreshToken: refresh, expiresIn: configuration.accessTokenLifetime,
            userID: session.userID, clientID: session.clientID, sessionID: session.id)
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
            guard let user = try await tx.user(id: userID), user.app == configuration.app else {
                throw TokenError(.sessionRevoked, "the session is not live")
            }
            if user.disabledAt != nil { throw TokenError(.userDisabled, "the user is disabled") }
            guard let key = try await tx.activeSigningKey() else { throw TokenError(.storeUnavailable, "no signing key") }
            return (session, try keyRing.signer(for: key))
        }
        return try makePair(refresh: "", session: session, signer: signer, now: now).accessToken
    }
}
