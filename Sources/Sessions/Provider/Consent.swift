extension SessionStore {
    /// The scopes `userID` allowed the OpenID Connect client `clientID` so far; none when it
    /// allowed nothing yet.
    /// - Throws: `store_unavailable`.
    public func consentedScopes(userID: String, clientID: String) async throws -> [String] {
        try await read { tx in try await tx.consent(userID: userID, clientID: clientID) }?.scopes ?? []
    }

    /// Adds `scopes` to what `userID` allowed `clientID` (the consent page's "allow"), in one
    /// transaction: an allowed set adds to what was allowed before, in the order first allowed.
    /// - Throws: `store_unavailable`.
    public func addConsent(userID: String, clientID: String, scopes: [String], at time: Int64) async throws {
        try await transaction { tx in
            let before = try await tx.consent(userID: userID, clientID: clientID)
            let kept = before?.scopes ?? []
            try await tx.saveConsent(
                ConsentRecord(
                    userID: userID, clientID: clientID, scopes: kept + scopes.filter { !kept.contains($0) },
                    createdAt: before?.createdAt ?? time, updatedAt: time))
        }
    }
}
