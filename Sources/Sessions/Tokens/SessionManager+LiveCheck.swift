import JOSE

extension SessionManager {
    /// The live check of a verified access token, against the store at once (nothing cached): its
    /// session (`sid`) is live and belongs to `sub`, and that user exists, belongs to this
    /// manager's app (or the app the token was issued to) and is not disabled. One
    /// call, two reads (each as fresh as the store has it; no transaction needed).
    /// - Returns: `false` for a token without `sid`, an ended or unknown session, or a gone or disabled user.
    /// - Throws: `store_unavailable`.
    public func isLive(_ claims: AccessTokenClaims) async throws -> Bool {
        guard let sid = claims.sessionID else { return false }
        // The user is of this manager's app, or, for a token verified for several apps' audiences
        // (by the store's service, before the app is known), of the app its verified `aud` names.
        let app = configuration.app, audience = claims.audience
        return try await isLive(sessionID: sid, userID: claims.subject) { $0 == app || (!$0.isEmpty && audience.contains($0)) }
    }

    /// The same check for a session kept across a round trip (a link waiting for the provider):
    /// the session `sessionID` is live and belongs to `userID`, a present, enabled user of this
    /// manager's app. Two reads.
    /// - Throws: `store_unavailable`.
    public func isLive(sessionID: String, userID: String) async throws -> Bool {
        let app = configuration.app
        return try await isLive(sessionID: sessionID, userID: userID) { $0 == app }
    }

    private func isLive(sessionID: String, userID: String, appIs: @escaping @Sendable (String) -> Bool) async throws -> Bool {
        let now = configuration.now
        return try await store.read { tx in
            guard let session = try await tx.session(id: sessionID, forUpdate: false), session.isLive(at: now), session.userID == userID,
                let user = try await tx.user(id: userID)
            else { return false }
            return user.disabledAt == nil && appIs(user.app)
        }
    }
}
