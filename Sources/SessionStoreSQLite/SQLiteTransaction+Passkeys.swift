import SQLiteNIO
import Sessions

/// Passkeys in SQLite (`passkeys`, schema step 16). `BEGIN IMMEDIATE` makes transactions serial:
/// an assertion's read of the counter and its write are never interleaved with another's.
extension SQLiteTransaction {
    private static let passkeyColumns = "id, app, user_id, name, public_key, algorithm, sign_count, created_at, last_used_at"

    private static func passkey(_ r: SQLiteRow) -> PasskeyRecord {
        PasskeyRecord(
            id: r.string("id"), app: r.string("app"), userID: r.string("user_id"), name: r.string("name"), publicKey: r.string("public_key"),
            algorithm: r.string("algorithm"), signCount: r.int("sign_count"), createdAt: r.int("created_at"), lastUsedAt: r.optInt("last_used_at"))
    }

    func insertPasskey(_ p: PasskeyRecord) async throws -> Bool {
        try await !q(
            "INSERT INTO passkeys (\(Self.passkeyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id",
            [
                .text(p.id), .text(p.app), .text(p.userID), .text(p.name), .text(p.publicKey), .text(p.algorithm), .int(p.signCount),
                .int(p.createdAt), .opt(p.lastUsedAt),
            ]
        ).isEmpty
    }

    func passkey(app: String, id: String, forUpdate: Bool) async throws -> PasskeyRecord? {
        try await q("SELECT \(Self.passkeyColumns) FROM passkeys WHERE app = ? AND id = ?", [.text(app), .text(id)]).first.map(Self.passkey)
    }

    func passkeys(app: String, userID: String) async throws -> [PasskeyRecord] {
        try await q("SELECT \(Self.passkeyColumns) FROM passkeys WHERE app = ? AND user_id = ? ORDER BY created_at, id", [.text(app), .text(userID)])
            .map(Self.passkey)
    }

    func recordPasskeyUse(app: String, id: String, signCount: Int64, at time: Int64) async throws {
        _ = try await q(
            "UPDATE passkeys SET sign_count = ?, last_used_at = ? WHERE app = ? AND id = ?", [.int(signCount), .int(time), .text(app), .text(id)])
    }

    func deletePasskey(app: String, userID: String, id: String) async throws -> Bool {
        try await !q("DELETE FROM passkeys WHERE app = ? AND user_id = ? AND id = ? RETURNING id", [.text(app), .text(userID), .text(id)]).isEmpty
    }

    func deletePasskeys(app: String, userID: String) async throws -> Int {
        try await q("DELETE FROM passkeys WHERE app = ? AND user_id = ? RETURNING id", [.text(app), .text(userID)]).count
    }
}
