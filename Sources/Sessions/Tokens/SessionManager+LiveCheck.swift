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
        let now = configuration.now
        return try await store.read { tx in
            guard let session = try await tx.session(id: sid, forUpdate: false), session.isLive(at: now), session.userID == claims.subject,
                let user = try await tx.user(id: claims.subject)
            else { return false }
            // The user is of this manager's app, or, for a token verified for several apps' audiences
            // (by the store's service, before the app is known), of the app its verified `aud` names.
            return user.disabledAt == nil && (user.app == configuration.app || (!user.app.isEmpty && claims.audience.contains(user.app)))
        }
    }
}
