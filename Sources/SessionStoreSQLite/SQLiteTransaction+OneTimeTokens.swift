import SQLiteNIO
import Sessions

/// One-time tokens in SQLite (`one_time_tokens`, schema step 12). A consumption is one
/// `UPDATE … RETURNING`; `BEGIN IMMEDIATE` makes transactions serial, so of concurrent consumers
/// the first to take the write lock changes the row and every later one finds `used_at` set.
extension SQLiteTransaction {
    private static let oneTimeColumns = "purpose, hash, app, subject, payload, created_at, expires_at, used_at"

    private static func oneTimeToken(_ r: SQLiteRow) -> OneTimeTokenRecord {
        OneTimeTokenRecord(
            purpose: OneTimeTokenPurpose(rawValue: r.string("purpose")), hash: r.string("hash"), app: r.string("app"), subject: r.string("subject"),
            payload: r.string("payload"), createdAt: r.int("created_at"), expiresAt: r.int("expires_at"), usedAt: r.optInt("used_at"))
    }

    func insertOneTimeToken(_ t: OneTimeTokenRecord) async throws {
        try await store.rows(
            "INSERT INTO one_time_tokens (\(Self.oneTimeColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                .text(t.purpose.rawValue), .text(t.hash), .text(t.app), .text(t.subject), .text(t.payload), .int(t.createdAt), .int(t.expiresAt),
                .opt(t.usedAt),
            ])
    }

    func oneTimeToken(purpose: OneTimeTokenPurpose, hash: String, app: String) async throws -> OneTimeTokenRecord? {
        try await store.rows(
            "SELECT \(Self.oneTimeColumns) FROM one_time_tokens WHERE purpose = ? AND hash = ? AND app = ?",
            [.text(purpose.rawValue), .text(hash), .text(app)]
        ).first.map(Self.oneTimeToken)
    }

    func consumeOneTimeToken(purpose: OneTimeTokenPurpose, hash: String, app: String, at time: Int64) async throws -> OneTimeTokenRecord? {
        try await store.rows(
            """
            UPDATE one_time_tokens SET used_at = ?
            WHERE purpose = ? AND hash = ? AND app = ? AND used_at IS NULL AND expires_at > ?
            RETURNING \(Self.oneTimeColumns)
            """, [.int(time), .text(purpose.rawValue), .text(hash), .text(app), .int(time)]
        ).first.map(Self.oneTimeToken)
    }

    func expireOneTimeTokens(purpose: OneTimeTokenPurpose, app: String, subject: String, at time: Int64) async throws -> Int {
        try await store.rows(
            """
            UPDATE one_time_tokens SET expires_at = ?
            WHERE app = ? AND subject = ? AND purpose = ? AND used_at IS NULL AND expires_at > ? RETURNING hash
            """,
            [.int(time), .text(app), .text(subject), .text(purpose.rawValue), .int(time)]
        ).count
    }

    func liveOneTimeTokens(purpose: OneTimeTokenPurpose, app: String, subject: String, at time: Int64, limit: Int) async throws
        -> [OneTimeTokenRecord]
    {
        try await store.rows(
            """
            SELECT \(Self.oneTimeColumns) FROM one_time_tokens
            WHERE app = ? AND subject = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
            ORDER BY created_at DESC LIMIT ?
            """,
            [.text(app), .text(subject), .text(purpose.rawValue), .int(time), .int(Int64(limit))]
        ).map(Self.oneTimeToken)
    }

    func deleteOneTimeTokens(endedBefore time: Int64) async throws -> Int {
        try await store.rows("DELETE FROM one_time_tokens WHERE used_at <= ? OR expires_at <= ? RETURNING hash", [.int(time), .int(time)]).count
    }
}
