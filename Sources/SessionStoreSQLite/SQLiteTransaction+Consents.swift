import SQLiteNIO
import Sessions

/// Remembered consents in SQLite (`consents`, schema step 14).
extension SQLiteTransaction {
    func consent(userID: String, clientID: String) async throws -> ConsentRecord? {
        try await store.rows(
            "SELECT scopes, created_at, updated_at FROM consents WHERE user_id = ? AND client_id = ?", [.text(userID), .text(clientID)]
        ).first.map {
            ConsentRecord(
                userID: userID, clientID: clientID, scopes: ConsentRecord.scopes(stored: $0.string("scopes")), createdAt: $0.int("created_at"),
                updatedAt: $0.int("updated_at"))
        }
    }

    func saveConsent(_ c: ConsentRecord) async throws {
        try await store.rows(
            """
            INSERT INTO consents (user_id, client_id, scopes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at
            """, [.text(c.userID), .text(c.clientID), .text(c.storedScopes), .int(c.createdAt), .int(c.updatedAt)])
    }
}
