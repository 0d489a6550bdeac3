import PostgresNIO
import Sessions

/// Schema step 5: disabled users, sealed provider tokens, idle users, API keys.
extension PostgresTransaction {
    func setUserDisabled(id: String, at time: Int64?) async throws -> Bool {
        try await !q("UPDATE users SET disabled_at = \(time) WHERE id = \(id) RETURNING id").isEmpty
    }

    func setSealedProviderToken(app: String, provider: String, subject: String, sealed: String?) async throws {
        _ = try await q(
            "UPDATE identities SET sealed_provider_token = \(sealed) WHERE app = \(app) AND provider = \(provider) AND issuer = '' AND subject = \(subject)"
        )
    }

    func adoptLegacyUsers(app: String, bySessions: Bool, apps: [String], at time: Int64) async throws -> Int {
        // The users to move: of the empty app, and (by sessions) whose latest session names `app`.
        for other in apps where other != app {
            _ = try await q(
                """
                UPDATE sessions SET revoked_at = \(time), revoke_reason = 'app' WHERE revoked_at IS NULL AND client_id = \(other)
                  AND user_id IN (SELECT u.id FROM users u WHERE u.app = '' AND (NOT \(bySessions) OR
                    (SELECT s.client_id FROM sessions s WHERE s.user_id = u.id ORDER BY s.last_used_at DESC, s.id DESC LIMIT 1) = \(app)))
                """)
        }
        let moved = try await q(
            """
            UPDATE users u SET app = \(app) WHERE u.app = '' AND (NOT \(bySessions) OR
              (SELECT s.client_id FROM sessions s WHERE s.user_id = u.id ORDER BY s.last_used_at DESC, s.id DESC LIMIT 1) = \(app))
            RETURNING u.id
            """
        ).count
        _ = try await q(
            """
            UPDATE identities i SET app = \(app) WHERE i.app = '' AND i.user_id IN (SELECT id FROM users WHERE app = \(app))
              AND NOT EXISTS (SELECT 1 FROM identities o WHERE o.app = \(app) AND o.provider = i.provider
                              AND o.issuer = i.issuer AND o.subject = i.subject)
            """)
        _ = try await q(
            """
            UPDATE accounts a SET app = \(app) WHERE a.app = '' AND a.user_id IN (SELECT id FROM users WHERE app = \(app))
              AND NOT EXISTS (SELECT 1 FROM accounts o WHERE o.app = \(app) AND o.email_key = a.email_key)
            """)
        // The confirm and reset tokens of the accounts that moved follow them.
        _ = try await q(
            """
            UPDATE one_time_tokens SET app = \(app) WHERE app = '' AND purpose IN ('confirm', 'reset')
              AND subject IN (SELECT id FROM accounts WHERE app = \(app))
            """)
        return moved
    }

    func idleUsers(onlyProvider provider: String, before: Int64, limit: Int) async throws -> [String] {
        try await q(
            """
            SELECT u.id FROM users u
            WHERE u.created_at < \(before)
              AND EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.provider = \(provider))
              AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.user_id = u.id AND i.provider <> \(provider))
              AND NOT EXISTS (SELECT 1 FROM sessions f WHERE f.user_id = u.id AND f.last_used_at >= \(before))
            ORDER BY u.created_at LIMIT \(Int64(limit))
            """
        ).map { try $0.decode(String.self) }
    }

    func insertAPIKey(_ k: APIKeyRecord) async throws -> Bool {
        try await !q(
            """
            INSERT INTO api_keys (id, user_id, name, hash, disabled, created_at)
            VALUES (\(k.id), \(k.userID), \(k.name), \(k.hash), \(k.disabled), \(k.createdAt))
            ON CONFLICT (user_id, name) DO NOTHING RETURNING id
            """
        ).isEmpty
    }

    private static func apiKey(_ r: PostgresRow) throws -> APIKeyRecord {
        let (id, userID, name, hash, disabled, created) = try r.decode((String, String, String, String, Bool, Int64).self)
        return APIKeyRecord(id: id, userID: userID, name: name, hash: hash, disabled: disabled, createdAt: created)
    }

    func apiKeys(userID: String) async throws -> [APIKeyRecord] {
        try await q("SELECT id, user_id, name, hash, disabled, created_at FROM api_keys WHERE user_id = \(userID) ORDER BY created_at, id")
            .map(Self.apiKey)
    }

    func apiKey(hash: String) async throws -> APIKeyRecord? {
        try await q("SELECT id, user_id, name, hash, disabled, created_at FROM api_keys WHERE hash = \(hash)").first.map(Self.apiKey)
    }

    func setAPIKeyDisabled(id: String, userID: String, disabled: Bool) async throws -> Bool {
        try await !q("UPDATE api_keys SET disabled = \(disabled) WHERE id = \(id) AND user_id = \(userID) RETURNING id").isEmpty
    }

    func revokeSessions(apiKeyID: String, at time: Int64, reason: String) async throws -> Int {
        try await q(
            "UPDATE sessions SET revoked_at = \(time), revoke_reason = \(reason) WHERE api_key_id = \(apiKeyID) AND revoked_at IS NULL RETURNING id"
        ).count
    }

    func revokeSessions(opSessionID: String, at time: Int64, reason: String) async throws -> Int {
        try await q(
            "UPDATE sessions SET revoked_at = \(time), revoke_reason = \(reason) WHERE op_session = \(opSessionID) AND revoked_at IS NULL RETURNING id"
        ).count
    }

    func deleteAPIKey(id: String, userID: String) async throws -> Bool {
        try await !q("DELETE FROM api_keys WHERE id = \(id) AND user_id = \(userID) RETURNING id").isEmpty
    }
}
