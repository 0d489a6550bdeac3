import JOSE

extension SessionService {
    /// RFC 7009 revocation of a refresh token or an access token: either ends its session.
    ///
    /// An unknown, malformed, expired or already revoked token is not an error (RFC 7009 §2.2):
    /// the answer is `nil` and nothing changes.
    /// - Parameters:
    ///   - client: who asks; a public client may revoke only tokens issued to it.
    ///   - audiences: the apps whose access tokens are recognised.
    /// - Returns: the id of the session that was ended, or `nil` when there was nothing to end.
    /// - Throws: `unauthorized_client` when a public client names a live token of another client
    ///   (the token stays live); `store_unavailable`.
    @discardableResult
    public func revoke(
        _ token: String, by client: SessionManager.RevokingClient, audiences: Set<String>,
        reason: String = "revoked"
    ) async throws -> String? {
        let now = configuration.now
        let session: SessionRecord?
        if RefreshToken.looksLikeRefreshToken(token) {
            session = try await self.session(ofRefreshToken: token)
        } else {
            // The session check also makes sure the sid's session is the token's user's.
            let claims: AccessTokenClaims
            do {
                claims = try await verifyAccessToken(token, audiences: audiences, checkSession: true)
            } catch let e as TokenError where e.code.rejectsToken {
                return nil  // not ours, expired, or its session already ended
            }
            guard let sid = claims.sessionID else { return nil }
            session = try await self.session(id: sid)
        }
        guard let session, session.isLive(at: now) else { return nil }
        if case .publicClient(let id) = client, id != session.clientID {
            throw TokenError(.unauthorizedClient, "the token was not issued to this client")
        }
        try await revokeSession(id: session.id, reason: reason)
        return session.id
    }
}
