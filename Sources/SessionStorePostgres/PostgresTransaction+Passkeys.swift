import PostgresNIO
import Sessions

/// Passkeys in PostgreSQL (`passkeys`, schema step 16). An assertion reads its passkey `FOR
/// UPDATE`: of two instances checking assertions by one authenticator, the second sees the
/// first's counter.
extension PostgresTransaction {
    private static func passkey(_ r: PostgresRow) throws -> PasskeyRecord {
        let (id, app, user, name, key, algorithm, count, created, used) = try r.decode(
            (String, String, String, String, String, String, Int64, Int64, Int64?).self)
        return PasskeyRecord(
            id: id, app: app, userID: user, name: name, publicKey: key, algorithm: algorithm, signCount: count, createdAt: created, lastUsedAt: used)
    }

    func insertPasskey(_ p: PasskeyRecord) async throws -> Bool {
        try await !q(
            """
            INSERT INTO passkeys (id, app, user_id, name, public_key, algorithm, sign_count, created_at, last_used_at)
            VALUES (\(p.id), \(p.app), \(p.userID), \(p.name), \(p.publicKey), \(p.algorithm), \(p.signCount), \(p.createdAt), \(p.lastUsedAt))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """
        ).isEmpty
    }

    func passkey(app: String, id: String, forUpdate: Bool) async throws -> PasskeyRecord? {
        let lock = forUpdate ? " FOR UPDATE" : ""
        return try await q(
            """
            SELECT id, app, user_id, name, public_key, algorithm, sign_count, created_at, last_used_at
            FROM passkeys WHERE app = \(app) AND id = \(id)\(unescaped: lock)
            """
        ).first.map(Self.passkey)
    }

    func passkeys(app: String, userID: String) async throws -> [PasskeyRecord] {
        try await q(
            """
            SELECT id, app, user_id, name, public_key, algorithm, sign_count, created_at, last_used_at
            FROM passkeys WHERE app = \(app) AND user_id = \(userID) ORDER BY created_at, id
            """
        ).map(Self.passkey)
    }

    func recordPasskeyUse(app: String, id: String, signCount: Int64, at time: Int64) async throws {
        _ = try await q("UPDATE passkeys SET sign_count = \(signCount), last_used_at = \(time) WHERE app = \(app) AND id = \(id)")
    }

    func deletePasskey(app: String, userID: String, id: String) async throws -> Bool {
        try await !q("DELETE FROM passkeys WHERE app = \(app) AND user_id = \(userID) AND id = \(id) RETURNING id").isEmpty
    }

    func deletePasskeys(app: String, userID: String) async throws -> Int {
        try await q("DELETE FROM passkeys WHERE app = \(app) AND user_id = \(userID) RETURNING id").count
    }
}
