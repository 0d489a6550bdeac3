import PostgresNIO
import Sessions

/// Remembered consents in PostgreSQL (`consents`, schema step 14).
extension PostgresTransaction {
    func consent(userID: String, clientID: String) async throws -> ConsentRecord? {
        try await q("SELECT scopes, created_at, updated_at FROM consents WHERE user_id = \(userID) AND client_id = \(clientID)").first.map {
            let (scopes, created, updated) = try $0.decode((String, Int64, Int64).self)
            return ConsentRecord(
                userID: userID, clientID: clientID, scopes: ConsentRecord.scopes(stored: scopes), createdAt: created, updatedAt: updated)
        }
    }

    func saveConsent(_ c: ConsentRecord) async throws {
        _ = try await q(
            """
            INSERT INTO consents (user_id, client_id, scopes, created_at, updated_at)
            VALUES (\(c.userID), \(c.clientID), \(c.storedScopes), \(c.createdAt), \(c.updatedAt))
            ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at
            """)
    }
}
