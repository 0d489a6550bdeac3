import SQLiteNIO
import Sessions

/// Second factors in SQLite (`mfa_factors`, schema step 15). `BEGIN IMMEDIATE` makes
/// transactions serial, so a read, a check and the write after it are never interleaved.
extension SQLiteTransaction {
    private static let mfaColumns =
        "user_id, app, sealed_totp_secret, totp_confirmed_at, totp_last_step, recovery_codes, failed_attempts, locked_until, updated_at"

    func mfaFactors(app: String, userID: String, forUpdate: Bool) async throws -> MFAFactorsRecord? {
        try await store.rows("SELECT \(Self.mfaColumns) FROM mfa_factors WHERE app = ? AND user_id = ?", [.text(app), .text(userID)]).first.map {
            MFAFactorsRecord(
                userID: $0.string("user_id"), app: $0.string("app"), sealedTOTPSecret: $0.optString("sealed_totp_secret"),
                totpConfirmedAt: $0.optInt("totp_confirmed_at"), totpLastStep: $0.optInt("totp_last_step"),
                recoveryCodes: MFAFactorsRecord.recoveryCodes(fromText: $0.string("recovery_codes")), failedAttempts: Int($0.int("failed_attempts")),
                lockedUntil: $0.optInt("locked_until"), updatedAt: $0.int("updated_at"))
        }
    }

    func saveMFAFactors(_ r: MFAFactorsRecord) async throws {
        try await store.rows(
            """
            INSERT INTO mfa_factors (\(Self.mfaColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET app = excluded.app, sealed_totp_secret = excluded.sealed_totp_secret,
                totp_confirmed_at = excluded.totp_confirmed_at, totp_last_step = excluded.totp_last_step,
                recovery_codes = excluded.recovery_codes, failed_attempts = excluded.failed_attempts,
                locked_until = excluded.locked_until, updated_at = excluded.updated_at
            """,
            [
                .text(r.userID), .text(r.app), .opt(r.sealedTOTPSecret), .opt(r.totpConfirmedAt), .opt(r.totpLastStep), .text(r.recoveryCodesText),
                .int(Int64(r.failedAttempts)), .opt(r.lockedUntil), .int(r.updatedAt),
            ])
    }

    func deleteMFAFactors(app: String, userID: String) async throws -> Bool {
        try await !store.rows("DELETE FROM mfa_factors WHERE app = ? AND user_id = ? RETURNING user_id", [.text(app), .text(userID)]).isEmpty
    }
}
