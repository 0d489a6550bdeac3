import PostgresNIO
import Sessions

/// Accounts and throttle events in PostgreSQL.
extension PostgresTransaction {
    private func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await PostgresSessionStore.run(connection, query, location: location, logger: logger)
    }

    private static func account(_ r: PostgresRow) throws -> AccountRecord {
        let (id, userID, email, key, hash, confirmed, created, app) = try r.decode(
            (String, String?, String, String, String, Int64?, Int64, String).self)
        return AccountRecord(
            id: id, userID: userID, email: email, emailKey: key, passwordHash: hash, confirmedAt: confirmed, createdAt: created, app: app)
    }

    func insertAccount(_ a: AccountRecord) async throws -> Bool {
        try await !run(
            """
            INSERT INTO accounts (id, user_id, email, email_key, password_hash, confirmed_at, created_at, app)
            VALUES (\(a.id), \(a.userID), \(a.email), \(a.emailKey), \(a.passwordHash), \(a.confirmedAt), \(a.createdAt), \(a.app))
            ON CONFLICT DO NOTHING RETURNING id
            """
        ).isEmpty
    }

    func account(app: String, emailKey: String) async throws -> AccountRecord? {
        try await run(
            """
            SELECT id, user_id, email, email_key, password_hash, confirmed_at, created_at, app FROM accounts
            WHERE app = \(app) AND email_key = \(emailKey)
            """
        ).first.map(Self.account)
    }

    func account(userID: String) async throws -> AccountRecord? {
        try await run(
            """
            SELECT id, user_id, email, email_key, password_hash, confirmed_at, created_at, app FROM accounts WHERE user_id = \(userID)
            """
        ).first.map(Self.account)
    }

    func account(id: String, forUpdate: Bool) async throws -> AccountRecord? {
        let columns = "id, user_id, email, email_key, password_hash, confirmed_at, created_at, app"
        if forUpdate {
            return try await run("SELECT \(unescaped: columns) FROM accounts WHERE id = \(id) FOR UPDATE").first.map(Self.account)
        }
        return try await run("SELECT \(unescaped: columns) FROM accounts WHERE id = \(id)").first.map(Self.account)
    }

    func setAccountUser(id: String, userID: String) async throws -> Bool {
        try await !run("UPDATE accounts SET user_id = \(userID) WHERE id = \(id) AND user_id IS NULL RETURNING id").isEmpty
    }

    func updatePasswordHash(accountID: String, hash: String, expected: String?) async throws -> Bool {
        if let expected {
            return try await !run(
                "UPDATE accounts SET password_hash = \(hash) WHERE id = \(accountID) AND password_hash = \(expected) RETURNING id"
            ).isEmpty
        }
        return try await !run("UPDATE accounts SET password_hash = \(hash) WHERE id = \(accountID) RETURNING id").isEmpty
    }

    func confirmAccount(id: String, at time: Int64) async throws -> Bool {
        try await !run("UPDATE accounts SET confirmed_at = \(time) WHERE id = \(id) AND confirmed_at IS NULL RETURNING id").isEmpty
    }

    func lockThrottleKey(_ key: String) async throws {
        // Two instances counting the same key queue here; the lock ends with the transaction.
        _ = try await run("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 7305196519))")
    }

    func throttleEvents(key: String, since: Int64) async throws -> (count: Int, oldest: Int64?) {
        let row = try await run("SELECT COUNT(*)::BIGINT, MIN(at) FROM throttle_events WHERE key = \(key) AND at >= \(since)").first
        guard let row else { return (0, nil) }
        let (count, oldest) = try row.decode((Int64, Int64?).self)
        return (Int(count), oldest)
    }

    func insertThrottleEvent(key: String, at time: Int64, expiresAt: Int64) async throws {
        _ = try await run("INSERT INTO throttle_events (key, at, expires_at) VALUES (\(key), \(time), \(expiresAt))")
    }

    func purgeAccounts(now: Int64) async throws -> Int {
        let events = try await run("DELETE FROM throttle_events WHERE expires_at <= \(now) RETURNING key").count
        return try await events + deleteOneTimeTokens(endedBefore: now - OneTimeTokenRecord.keptAfterEnd)
    }
}
