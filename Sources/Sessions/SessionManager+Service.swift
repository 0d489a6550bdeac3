import JOSE

/// What a manager answers from its ``SessionService``: the store-wide calls, with this app's
/// audience where the service needs a set of them.
extension SessionManager {
    /// Verifies an access token of this app against the store's published keys; with
    /// `checkSession`, also that its session (`sid`) is still live (not revoked, not expired, not purged).
    /// - Throws: the codes of ``AccessTokenVerifier``; `session_revoked` when `checkSession`
    ///   finds the session dead; `store_unavailable`.
    public func verifyAccessToken(_ token: String, checkSession: Bool = true) async throws -> AccessTokenClaims {
        try await service.verifyAccessToken(token, audiences: [configuration.audience], checkSession: checkSession)
    }

    /// ``verifyAccessToken(_:checkSession:)`` for a token issued for any of `audiences`
    /// (``SessionService/verifyAccessToken(_:audiences:checkSession:)``; an empty set means this
    /// app's audience).
    public func verifyAccessToken(_ token: String, audiences: Set<String>, checkSession: Bool = true) async throws -> AccessTokenClaims {
        try await service.verifyAccessToken(token, audiences: audiences.isEmpty ? [configuration.audience] : audiences, checkSession: checkSession)
    }

    /// RFC 7662 introspection (``SessionService/introspect(_:audiences:)``).
    /// - Parameter audiences: the apps whose access tokens count (default: this app's audience).
    /// - Throws: `store_unavailable` and configuration errors only.
    public func introspect(_ token: String, audiences: Set<String> = []) async throws -> Introspection {
        try await service.introspect(token, audiences: audiences.isEmpty ? [configuration.audience] : audiences, singleSpace: configuration.app.isEmpty)
    }

    /// RFC 7009 revocation (``SessionService/revoke(_:by:audiences:reason:)``).
    /// - Parameter audiences: the apps whose access tokens are recognised (default: this app's audience).
    /// - Throws: `unauthorized_client`, `store_unavailable`.
    @discardableResult
    public func revoke(_ token: String, by client: RevokingClient, audiences: Set<String> = [], reason: String = "revoked") async throws -> String? {
        try await service.revoke(token, by: client, audiences: audiences.isEmpty ? [configuration.audience] : audiences, reason: reason)
    }

    /// The session a refresh token belongs to (``SessionService/session(ofRefreshToken:)``).
    public func session(ofRefreshToken token: String) async throws -> SessionRecord? {
        try await service.session(ofRefreshToken: token)
    }

    /// A session by id; `nil` when unknown or purged.
    public func session(id: String) async throws -> SessionRecord? {
        try await service.session(id: id)
    }

    /// A refresh token used as a bearer (``SessionService/bearer(refreshToken:)``).
    public func bearer(refreshToken token: String) async throws -> RefreshBearer {
        try await service.bearer(refreshToken: token)
    }

    /// Deletes users whose only identities are of `provider` and who have not used a session for
    /// `idleSeconds` (``SessionService/removeIdleUsers(onlyProvider:idleSeconds:limit:)``).
    /// - Returns: how many were deleted.
    public func removeIdleUsers(onlyProvider provider: String, idleSeconds: Int64, limit: Int = 500) async throws -> Int {
        try await service.removeIdleUsers(onlyProvider: provider, idleSeconds: idleSeconds, limit: limit)
    }

    /// Deletes a user with its identities and every session, in one transaction, and
    /// nothing else. Access tokens already issued stay valid until they expire unless the
    /// resource server checks the session (``verifyAccessToken(_:checkSession:)``).
    /// - Throws: `user_not_found`, `store_unavailable`.
    public func deleteUser(id: String) async throws {
        try await service.deleteUser(id: id)
    }
}
