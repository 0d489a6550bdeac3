import JOSE

extension SessionManager {
    /// Issues a token pair in a new family (one sign-in on one device) for an existing user.
    /// - Parameter device: the client's device details as JSON, kept with the session (at most 4 KiB).
    /// - Throws: `user_not_found`, `user_disabled`, `invalid_input` (a client id that is empty, too long or
    ///   holds control characters; device details over 4 KiB), `invalid_configuration`, `store_unavailable`.
    public func issueTokens(userID: String, clientID: String? = nil, device: String? = nil) async throws -> TokenPair {
        try configuration.validate()
        guard Self.isStorableID(userID, maxBytes: 255) else { throw TokenError(.userNotFound, "no user has that id") }
        if let clientID, !Self.isStorableID(clientID, maxBytes: 255) {
            throw TokenError(.invalidInput, "client id must be 1…255 bytes without control characters")
        }
        if let device, device.utf8.count > 4096 { throw TokenError(.invalidInput, "device details must be at most 4096 bytes") }
        let key = try await keyRing.activeKey()
        let signer = try keyRing.signer(for: key)
        let now = configuration.now
        let client = clientID ?? configuration.defaultClientID
        let refresh = try RefreshToken.generate()
        let family = FamilyRecord(id: try RandomID.make(), userID: userID, clientID: client, createdAt: now,
                                  expiresAt: now + configuration.refreshAbsoluteLifetime,
                                  idleExpiresAt: now + min(configuration.refreshIdleLifetime, configuration.refreshAbsoluteLifetime),
                                  lastUsedAt: now, device: device)
        let keyRing = self.keyRing
        try await store.transaction { tx in
            guard let user = try await tx.user(id: userID) else { throw TokenError(.userNotFound, "no user has id \"\(userID.prefix(64))\"") }
            guard user.disabledAt == nil else { throw TokenError(.userDisabled, "the user is disabled") }
            try await keyRing.recordUse(of: key, in: tx)
            try await tx.insertFamily(family)
            try await tx.insertRefreshToken(RefreshTokenRecord(hash: RefreshToken.hash(refresh), familyID: family.id, createdAt: now))
        }
        return try makePair(refresh: refresh, family: family, signer: signer, now: now)
    }

    func makePair(refresh: String, family: FamilyRecord, signer: JWTSigner, now: Int64) throws -> TokenPair {
        let claims = AccessTokenClaims(issuer: configuration.issuer, subject: family.userID, audience: [configuration.audience],
                                       expiresAt: now + configuration.accessTokenLifetime, issuedAt: now, jwtID: try RandomID.make(),
                                       clientID: family.clientID, sessionID: family.id)
        let access = try signer.sign(claims.claimSet)
        return TokenPair(accessToken: access, refreshToken: refresh, expiresIn: configuration.accessTokenLifetime,
                         userID: family.userID, familyID: family.id)
    }
}
