import SQLiteNIO
import Sessions

/// Schema step 5: disabled users, sealed provider tokens, idle users, API keys.
extension SQLiteTransaction {
    func setUserDisabled(id: String, at time: Int64?) async throws -> Bool {
        try await !q("UPDATE users SET disabled_at = ? WHERE id = ? RETURNING id", [.opt(time), .text(id)]).isEmpty
    }

    func setSealedProviderToken(app: String, provider: String, subject: String, sealed: String?) async throws {
        _ = try await q(
            "UPDATE identities SET sealed_provider_token = ? WHERE app = ? AND provider = ? AND issuer = '' AND subject = ?",
            [.opt(sealed), .text(app), .text(provider), .text(subject)])
    }

    func adoptLegacyUsers(app: String, bySessions: Bool, apps: [String], at time: Int64) async throws -> Int {
        // The users to move: of the empty app, and (by sessions) whose latest session names `app`.
        let moving = """
            SELECT u.id FROM users u WHERE u.app = '' AND (? = 0 OR
              (SELECT s.client_id FROM sessions s WHERE s.user_id = u.id ORDER BY s.last_used_at DESC, s.id DESC LIMIT 1) = ?)
            """
        let which: [SQLiteData] = [.int(bySessions ? 1 : 0), .text(app)]
        for other in apps where other != app {
            _ = try await q(
                "UPDATE sessions SET revoked_at = ?, revoke_reason = 'app' WHERE revoked_at IS NULL AND client_id = ? AND user_id IN (\(moving))",
                [.int(time), .text(other)] + which)
        }
        let moved = try await q("UPDATE users SET app = ? WHERE id IN (\(moving)) RETURNING id", [.text(app)] + which).count
        _ = try await q(
            """
            UPDATE identities SET app = ? WHERE app = '' AND user_id IN (SELECT id FROM users WHERE app = ?)
              AND NOT EXISTS (SELECT 1 FROM identities o WHERE o.app = ? AND o.provider = identities.provider
                              AND o.issuer = identities.issuer AND o.subject = identities.subject)
            """, [.text(app), .text(app), .text(app)])
        _ = try await q(
            """
            UPDATE accounts SET app = ? WHERE app = '' AND user_id IN (SELECT id FROM users WHERE app = ?)
              AND NOT EXISTS (SELECT 1 FROM accounts o WHERE o.app = ? AND o.email_key = accounts.email_key)
            """, [.text(app), .text(app), .text(app)])
        // The confirm and reset tokens of the accounts that moved follow them.
        _ = try await q(
            """
            UPDATE one_time_tokens SET app = ? WHERE app = '' AND purpose IN ('confirm', 'reset')
              AND subject IN (SELECT id FROM accounts WHERE app = ?)
            """, [.text(app), .text(app)])
        return moved
    }

    func idleUsers(onlyProvider provider: String, before: Int64, limit: Int) async throws -> [String] {
        try await q(
            """
            SELECT u.id FROM users u
            WHERE u.created_at < ?
              AND EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.provider = ?)
              AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.provider <> ?)
              AND NOT EXISTS (SELECT 1 FROM sessions f WHERE f.user_id = u.id AND f.last_used_at >= ?)
            ORDER BY u.created_at LIMIT ?
            """, [.int(before), .text(provider), .text(provider), .int(before), .int(Int64(limit))]
        ).map { $0.string("id") }
    }

    func insertAPIKey(_ k: APIKeyRecord) async throws -> Bool {
        try await !q(
            """
            INSERT INTO api_keys (id, user_id, name, hash, disabled, created_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id, name) DO NOTHING RETURNING id
            """, [.text(k.id), .text(k.userID), .text(k.name), .text(k.hash), .int(k.disabled ? 1 : 0), .int(k.createdAt)]
        ).isEmpty
    }

    private static func apiKey(_ r: SQLiteRow) -> APIKeyRecord {
        APIKeyRecord(
            id: r.string("id"), userID: r.string("user_id"), name: r.string("name"), hash: r.string("hash"),
            disabled: r.int("disabled") != 0, createdAt: r.int("created_at"))
    }

    func apiKeys(userID: String) async throws -> [APIKeyRecord] {
        try await q(
            "SELECT id, user_id, name, hash, disabled, created_at FROM api_keys WHERE user_id = ? ORDER BY created_at, id",
            [.text(userID)]
        ).map(Self.apiKey)
    }

    func apiKey(hash: String) async throws -> APIKeyRecord? {
        try await q("SELECT id, user_id, name, hash, disabled, created_at FROM api_keys WHERE hash = ?", [.text(hash)]).first.map(Self.apiKey)
    }

    func setAPIKeyDisabled(id: String, userID: String, disabled: Bool) async throws -> Bool {
        try await !q(
            "UPDATE api_keys SET disabled = ? WHERE id = ? AND user_id = ? RETURNING id",
            [.int(disabled ? 1 : 0), .text(id), .text(userID)]
        ).isEmpty
    }

    func revokeSessions(apiKeyID: String, at time: Int64, reason: String) async throws -> Int {
        try await q(
            "UPDATE sessions SET revoked_at = ?, revoke_reason = ? WHERE api_key_id = ? AND revoked_at IS NULL RETURNING id",
            [.int(time), .text(reason), .text(apiKeyID)]
        ).count
    }

    func revokeSessions(opSessionID: String, at time: Int64, reason: String) async throws -> Int {
        try await q(
            "UPDATE sessions SET revoked_at = ?, revoke_reason = ? WHERE op_session = ? AND revoked_at IS NULL RETURNING id",
            [.int(time), .text(reason), .text(opSessionID)]
        ).count
    }

    func deleteAPIKey(id: String, userID: String) async throws -> Bool {
        try await !q("DELETE FROM api_keys WHERE id = ? AND user_id = ? RETURNING id", [.text(id), .text(userID)]).isEmpty
    }
}
