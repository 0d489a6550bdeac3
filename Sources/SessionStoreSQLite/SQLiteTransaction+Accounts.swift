import SQLiteNIO
import Sessions

/// Accounts and throttle events in SQLite. `BEGIN IMMEDIATE` holds the database's
/// write lock for the whole transaction, so a count and the insert after it are never interleaved.
extension SQLiteTransaction {
    private static let accountColumns = "id, user_id, email, email_key, password_hash, confirmed_at, created_at, app"

    private static func account(_ r: SQLiteRow) -> AccountRecord {
        AccountRecord(
            id: r.string("id"), userID: r.optString("user_id"), email: r.string("email"), emailKey: r.string("email_key"),
            passwordHash: r.string("password_hash"), confirmedAt: r.optInt("confirmed_at"), createdAt: r.int("created_at"),
            app: r.string("app"))
    }

    func insertAccount(_ a: AccountRecord) async throws -> Bool {
        try await !store.rows(
            """
            INSERT INTO accounts (\(Self.accountColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id
            """,
            [
                .text(a.id), .opt(a.userID), .text(a.email), .text(a.emailKey), .text(a.passwordHash), .opt(a.confirmedAt), .int(a.createdAt),
                .text(a.app),
            ]
        ).isEmpty
    }

    func account(app: String, emailKey: String) async throws -> AccountRecord? {
        try await store.rows("SELECT \(Self.accountColumns) FROM accounts WHERE app = ? AND email_key = ?", [.text(app), .text(emailKey)]).first.map(
            Self.account)
    }

    func account(userID: String) async throws -> AccountRecord? {
        try await store.rows("SELECT \(Self.accountColumns) FROM accounts WHERE user_id = ?", [.text(userID)]).first.map(Self.account)
    }

    func account(id: String, forUpdate: Bool) async throws -> AccountRecord? {
        // BEGIN IMMEDIATE already holds the database's write lock: no row lock needed.
        try await store.rows("SELECT \(Self.accountColumns) FROM accounts WHERE id = ?", [.text(id)]).first.map(Self.account)
    }

    func setAccountUser(id: String, userID: String) async throws -> Bool {
        try await !store.rows(
            "UPDATE accounts SET user_id = ? WHERE id = ? AND user_id IS NULL RETURNING id", [.text(userID), .text(id)]
        ).isEmpty
    }

    func updatePasswordHash(accountID: String, hash: String, expected: String?) async throws -> Bool {
        if let expected {
            return try await !store.rows(
                "UPDATE accounts SET password_hash = ? WHERE id = ? AND password_hash = ? RETURNING id",
                [.text(hash), .text(accountID), .text(expected)]
            ).isEmpty
        }
        return try await !store.rows(
            "UPDATE accounts SET password_hash = ? WHERE id = ? RETURNING id",
            [.text(hash), .text(accountID)]
        ).isEmpty
    }

    func confirmAccount(id: String, at time: Int64) async throws -> Bool {
        try await !store.rows(
            "UPDATE accounts SET confirmed_at = ? WHERE id = ? AND confirmed_at IS NULL RETURNING id",
            [.int(time), .text(id)]
        ).isEmpty
    }

    func lockThrottleKey(_ key: String) async throws {}

    func throttleEvents(key: String, since: Int64) async throws -> (count: Int, oldest: Int64?) {
        let row = try await store.rows(
            "SELECT COUNT(*) AS n, MIN(at) AS oldest FROM throttle_events WHERE key = ? AND at >= ?",
            [.text(key), .int(since)]
        ).first
        return (Int(row?.int("n") ?? 0), row?.optInt("oldest"))
    }

    func insertThrottleEvent(key: String, at time: Int64, expiresAt: Int64) async throws {
        try await store.rows("INSERT INTO throttle_events (key, at, expires_at) VALUES (?, ?, ?)", [.text(key), .int(time), .int(expiresAt)])
    }

    func purgeAccounts(now: Int64) async throws -> Int {
        let events = try await store.rows("DELETE FROM throttle_events WHERE expires_at <= ? RETURNING key", [.int(now)]).count
        return try await events + deleteOneTimeTokens(endedBefore: now - OneTimeTokenRecord.keptAfterEnd)
    }
}
