import PostgresNIO
import Sessions

/// One-time tokens in PostgreSQL (`one_time_tokens`, schema step 12). A consumption is one
/// `UPDATE … RETURNING`: under READ COMMITTED a concurrent consumer blocks on the row, then
/// re-checks `used_at IS NULL` against the committed row, so exactly one changes it.
extension PostgresTransaction {
    private static func oneTimeToken(_ r: PostgresRow) throws -> OneTimeTokenRecord {
        let (purpose, hash, app, subject, payload, created, expires, used) = try r.decode(
            (String, String, String, String, String, Int64, Int64, Int64?).self)
        return OneTimeTokenRecord(
            purpose: OneTimeTokenPurpose(rawValue: purpose), hash: hash, app: app, subject: subject, payload: payload, createdAt: created,
            expiresAt: expires, usedAt: used)
    }

    func insertOneTimeToken(_ t: OneTimeTokenRecord) async throws {
        _ = try await q(
            """
            INSERT INTO one_time_tokens (purpose, hash, app, subject, payload, created_at, expires_at, used_at)
            VALUES (\(t.purpose.rawValue), \(t.hash), \(t.app), \(t.subject), \(t.payload), \(t.createdAt), \(t.expiresAt), \(t.usedAt))
            """)
    }

    func oneTimeToken(purpose: OneTimeTokenPurpose, hash: String, app: String) async throws -> OneTimeTokenRecord? {
        try await q(
            """
            SELECT purpose, hash, app, subject, payload, created_at, expires_at, used_at FROM one_time_tokens
            WHERE purpose = \(purpose.rawValue) AND hash = \(hash) AND app = \(app)
            """
        ).first.map(Self.oneTimeToken)
    }

    func consumeOneTimeToken(purpose: OneTimeTokenPurpose, hash: String, app: String, at time: Int64) async throws -> OneTimeTokenRecord? {
        try await q(
            """
            UPDATE one_time_tokens SET used_at = \(time)
            WHERE purpose = \(purpose.rawValue) AND hash = \(hash) AND app = \(app) AND used_at IS NULL AND expires_at > \(time)
            RETURNING purpose, hash, app, subject, payload, created_at, expires_at, used_at
            """
        ).first.map(Self.oneTimeToken)
    }

    func expireOneTimeTokens(purpose: OneTimeTokenPurpose, app: String, subject: String, at time: Int64) async throws -> Int {
        try await q(
            """
            UPDATE one_time_tokens SET expires_at = \(time)
            WHERE app = \(app) AND subject = \(subject) AND purpose = \(purpose.rawValue) AND used_at IS NULL AND expires_at > \(time)
            RETURNING hash
            """
        ).count
    }

    func liveOneTimeTokens(purpose: OneTimeTokenPurpose, app: String, subject: String, at time: Int64, limit: Int) async throws
        -> [OneTimeTokenRecord]
    {
        try await q(
            """
            SELECT purpose, hash, app, subject, payload, created_at, expires_at, used_at FROM one_time_tokens
            WHERE app = \(app) AND subject = \(subject) AND purpose = \(purpose.rawValue) AND used_at IS NULL AND expires_at > \(time)
            ORDER BY created_at DESC LIMIT \(limit)
            """
        ).map(Self.oneTimeToken)
    }

    func deleteOneTimeTokens(endedBefore time: Int64) async throws -> Int {
        try await q("DELETE FROM one_time_tokens WHERE used_at <= \(time) OR expires_at <= \(time) RETURNING hash").count
    }
}
