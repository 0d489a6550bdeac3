import JOSE

/// Second factors of this manager's app's users: TOTP enrolment (pending, then confirmed by a
/// code), recovery codes, and the check of a code with its lock. Every check runs in one store
/// transaction over the user's row read for update: a code is accepted once, and the failures
/// are counted the same whichever instance or route sees them.
extension SessionManager {
    /// Wrong codes in a row that lock a user's code checks.
    public static let mfaFailureLimit = 5
    /// Seconds the lock lasts.
    public static let mfaLockSeconds: Int64 = 15 * 60

    /// The user's second factors.
    /// - Throws: `store_unavailable`.
    public func mfaStatus(userID: String) async throws -> MFAStatus {
        let app = configuration.app
        let (row, passkeys) = try await store.read { tx in
            (try await tx.mfaFactors(app: app, userID: userID, forUpdate: false), try await tx.passkeys(app: app, userID: userID).count)
        }
        let totp = row?.totpEnabled ?? false
        return MFAStatus(totp: totp, passkeys: passkeys, recoveryCodesLeft: totp || passkeys > 0 ? row?.recoveryCodes.count ?? 0 : 0)
    }

    /// Starts (or restarts) a TOTP enrolment: a new secret, sealed under the master key, pending
    /// until ``confirmTOTP(userID:code:)``. A pending one is replaced.
    /// - Throws: `invalid_input` when TOTP is already on; `invalid_configuration` without a master
    ///   key; `store_unavailable`.
    public func beginTOTP(userID: String, issuer: String, email: String) async throws -> TOTPEnrolment {
        let master = try mfaMasterKey()
        let (app, now) = (configuration.app, configuration.now)
        let totp = try TOTP(secret: try TOTP.generateSecret())
        let sealed = try Sealer.seal(totp.secret, key: master, purpose: .totpSecret, context: [app, userID])
        try await store.transaction { tx in
            var row = try await tx.mfaFactors(app: app, userID: userID, forUpdate: true) ?? MFAFactorsRecord(userID: userID, app: app, updatedAt: now)
            guard !row.totpEnabled else { throw TokenError(.invalidInput, "TOTP is already on; delete it before enrolling again") }
            row.sealedTOTPSecret = sealed
            row.totpConfirmedAt = nil
            row.totpLastStep = nil
            row.updatedAt = now
            try await tx.saveMFAFactors(row)
        }
        return TOTPEnrolment(secret: totp.base32Secret, uri: totp.uri(app: issuer, email: email))
    }

    /// Confirms a pending enrolment with a code of its secret: TOTP is on, and a new set of
    /// recovery codes (returned, never stored) replaces any earlier one. (A browser signed in to
    /// the OpenID Provider before must pass the factor before its next code: AuthServer asks it.)
    /// - Returns: the check, and the recovery codes when it was ``MFACheck/accepted``.
    /// - Throws: `invalid_input` when no enrolment is pending; `store_unavailable`.
    public func confirmTOTP(userID: String, code: String) async throws -> (MFACheck, [String]) {
        let codes = try RecoveryCodes.generate()
        let digests = codes.map { Base64URL.encode(RecoveryCodes.digest(of: $0, salt: userID) ?? []) }
        let check = try await checkMFA(userID: userID, code: .totp(code), pending: true) { row, tx in
            row.totpConfirmedAt = row.updatedAt
            row.recoveryCodes = digests
        }
        return (check, check == .accepted ? codes : [])
    }

    /// Turns TOTP off after a TOTP or recovery code; the recovery codes go with it unless a
    /// passkey remains.
    /// - Throws: `invalid_input` when TOTP is not on; `store_unavailable`.
    public func disableTOTP(userID: String, code: String) async throws -> MFACheck {
        let app = configuration.app
        guard try await mfaStatus(userID: userID).totp else { throw TokenError(.invalidInput, "TOTP is not on") }
        return try await checkMFA(userID: userID, code: .either(code)) { row, tx in
            guard row.totpEnabled else { throw TokenError(.invalidInput, "TOTP is not on") }
            row.sealedTOTPSecret = nil
            row.totpConfirmedAt = nil
            row.totpLastStep = nil
            if try await tx.passkeys(app: app, userID: userID).isEmpty { row.recoveryCodes = [] }
        }
    }

    /// A new set of recovery codes after a TOTP or recovery code; the old set dies.
    /// - Throws: `invalid_input` when TOTP is not on; `store_unavailable`.
    public func regenerateRecoveryCodes(userID: String, code: String) async throws -> (MFACheck, [String]) {
        let codes = try RecoveryCodes.generate()
        let digests = codes.map { Base64URL.encode(RecoveryCodes.digest(of: $0, salt: userID) ?? []) }
        let check = try await checkMFA(userID: userID, code: .either(code)) { row, _ in row.recoveryCodes = digests }
        return (check, check == .accepted ? codes : [])
    }

    /// Whether the user has a second factor on (a sign-in then needs it).
    /// - Throws: `store_unavailable`.
    public func hasSecondFactor(userID: String) async throws -> Bool {
        let status = try await mfaStatus(userID: userID)
        return status.totp || status.passkeys > 0
    }

    /// Checks a second-factor code in one transaction, with the lock: when the user is locked the
    /// code is not looked at; a wrong one counts (the ``mfaFailureLimit``-th starts the lock, for
    /// the next attempt on); a right one is spent (its step, or the recovery code), resets the
    /// count, and `accepted` runs in the same transaction (throwing there rolls it all back).
    /// - Parameter pending: check against a pending enrolment's secret (TOTP codes only).
    /// - Throws: `invalid_input` when the user has no such factor; `store_unavailable`; what
    ///   `accepted` throws.
    public func checkMFA(
        userID: String, code: MFACode, pending: Bool = false,
        accepted: @escaping @Sendable (inout MFAFactorsRecord, any SessionStoreTransaction) async throws -> Void
    ) async throws -> MFACheck {
        let master = try mfaMasterKey()
        let (app, now) = (configuration.app, configuration.now)
        return try await store.transaction { tx in
            // A code needs TOTP on (or, for a pending check, an enrolment pending), or recovery
            // codes left beside a passkey after TOTP was turned off.
            guard var row = try await tx.mfaFactors(app: app, userID: userID, forUpdate: true),
                pending ? (row.sealedTOTPSecret != nil && row.totpConfirmedAt == nil) : (row.totpEnabled || !row.recoveryCodes.isEmpty)
            else { throw TokenError(.invalidInput, pending ? "no TOTP enrolment is pending" : "TOTP is not on") }
            if let until = row.lockedUntil, until > now { return .locked(retryAfter: until - now) }
            // A pending enrolment's secret checks its confirming code only, never a sign-in's.
            var secret: [UInt8] = []
            if let sealed = row.sealedTOTPSecret, pending || row.totpEnabled {
                guard let opened = try Sealer.open(sealed, key: master, purpose: .totpSecret, context: [app, userID]) else {
                    throw TokenError(.invalidConfiguration, "a TOTP secret does not open under the master key")
                }
                secret = opened
            }
            let right = try Self.spend(code, secret: secret, row: &row, now: now, recovery: !pending)
            row.updatedAt = now
            row.lockedUntil = nil
            if right {
                row.failedAttempts = 0
                try await accepted(&row, tx)
            } else {
                row.failedAttempts += 1
                if row.failedAttempts >= Self.mfaFailureLimit {
                    row.failedAttempts = 0
                    row.lockedUntil = now + Self.mfaLockSeconds
                }
            }
            if row.sealedTOTPSecret == nil && row.recoveryCodes.isEmpty && row.lockedUntil == nil && row.failedAttempts == 0 {
                _ = try await tx.deleteMFAFactors(app: app, userID: userID)
            } else {
                try await tx.saveMFAFactors(row)
            }
            return right ? .accepted : .refused
        }
    }

    /// Whether `code` is right for `row`; when it is, spends it (the TOTP step becomes the last
    /// accepted one; the recovery code's digest is removed).
    private static func spend(_ code: MFACode, secret: [UInt8], row: inout MFAFactorsRecord, now: Int64, recovery: Bool) throws -> Bool {
        func totp(_ typed: String) throws -> Bool {
            guard !secret.isEmpty else { return false }
            do {
                row.totpLastStep = try TOTP(secret: secret).verify(typed, at: now, lastAcceptedStep: row.totpLastStep)
                return true
            } catch let e as TokenError where e.code == .invalidMFACode {
                return false
            }
        }
        func recoveryCode(_ typed: String) -> Bool {
            guard recovery else { return false }
            let stored = row.recoveryCodes.map { (try? Base64URL.decode($0, what: "recovery code digest")) ?? [] }
            guard let i = RecoveryCodes.match(typed, salt: row.userID, against: stored) else { return false }
            row.recoveryCodes.remove(at: i)
            return true
        }
        switch code {
        case .totp(let typed): return try totp(typed)
        case .recovery(let typed): return recoveryCode(typed)
        case .either(let typed):
            let digits = typed.utf8.filter { $0 != UInt8(ascii: " ") }
            return digits.count == TOTP.digits ? try totp(typed) : recoveryCode(typed)
        }
    }

    private func mfaMasterKey() throws -> [UInt8] {
        guard let master = configuration.masterKey else { throw TokenError(.invalidConfiguration, "a master key is needed to seal TOTP secrets") }
        return master
    }
}
