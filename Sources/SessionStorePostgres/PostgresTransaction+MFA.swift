import PostgresNIO
import Sessions

/// Second factors in PostgreSQL (`mfa_factors`, schema step 15). A check reads the row `FOR
/// UPDATE`, so of two instances checking codes for one user the second waits for the first's
/// accepted step and failure count.
extension PostgresTransaction {
    func mfaFactors(app: String, userID: String, forUpdate: Bool) async throws -> MFAFactorsRecord? {
        let lock = forUpdate ? " FOR UPDATE" : ""
        let query: PostgresQuery = """
            SELECT user_id, app, sealed_totp_secret, totp_confirmed_at, totp_last_step, recovery_codes, failed_attempts, locked_until, updated_at
            FROM mfa_factors WHERE app = \(app) AND user_id = \(userID)\(unescaped: lock)
            """
        return try await q(query).first.map {
            let (user, app, sealed, confirmed, step, codes, failures, locked, updated) = try $0.decode(
                (String, String, String?, Int64?, Int64?, String, Int32, Int64?, Int64).self)
            return MFAFactorsRecord(
                userID: user, app: app, sealedTOTPSecret: sealed, totpConfirmedAt: confirmed, totpLastStep: step,
                recoveryCodes: MFAFactorsRecord.recoveryCodes(fromText: codes), failedAttempts: Int(failures), lockedUntil: locked, updatedAt: updated
            )
        }
    }

    func saveMFAFactors(_ r: MFAFactorsRecord) async throws {
        _ = try await q(
            """
            INSERT INTO mfa_factors (user_id, app, sealed_totp_secret, totp_confirmed_at, totp_last_step, recovery_codes, failed_attempts,
                                     locked_until, updated_at)
            VALUES (\(r.userID), \(r.app), \(r.sealedTOTPSecret), \(r.totpConfirmedAt), \(r.totpLastStep), \(r.recoveryCodesText),
                    \(Int32(clamping: r.failedAttempts)), \(r.lockedUntil), \(r.updatedAt))
            ON CONFLICT (user_id) DO UPDATE SET app = EXCLUDED.app, sealed_totp_secret = EXCLUDED.sealed_totp_secret,
                totp_confirmed_at = EXCLUDED.totp_confirmed_at, totp_last_step = EXCLUDED.totp_last_step,
                recovery_codes = EXCLUDED.recovery_codes, failed_attempts = EXCLUDED.failed_attempts,
                locked_until = EXCLUDED.locked_until, updated_at = EXCLUDED.updated_at
            """)
    }

    func deleteMFAFactors(app: String, userID: String) async throws -> Bool {
        try await !q("DELETE FROM mfa_factors WHERE app = \(app) AND user_id = \(userID) RETURNING user_id").isEmpty
    }
}
