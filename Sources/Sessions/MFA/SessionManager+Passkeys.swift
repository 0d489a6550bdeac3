public import Identity
public import JOSE

extension OneTimeTokenPurpose {
    /// A passkey registration's challenge (the token is the challenge); subject: the user.
    public static let passkeyRegistration = OneTimeTokenPurpose(rawValue: "passkey-register")
    /// A passkey sign-in's challenge (the token is the challenge and its `challenge_id`).
    public static let passkeyLogin = OneTimeTokenPurpose(rawValue: "passkey-login")
    /// A passkey second factor's challenge; subject: the user; payload: what it is bound to (the
    /// digest of the sign-in's `mfa_token`).
    public static let passkeySecondFactor = OneTimeTokenPurpose(rawValue: "passkey-mfa")
}

/// What a passkey assertion came to.
public enum PasskeyCheck: Sendable, Hashable {
    /// It verified: the passkey's user, and whether the authenticator verified the user (UV).
    case accepted(userID: String, userVerified: Bool)
    /// It did not, for `reason` (counted towards the user's lock when the passkey was found).
    case refused(reason: String)
    /// The passkey's user is locked for `retryAfter` more seconds; the assertion was not checked.
    case locked(retryAfter: Int64)
}

/// Passkeys (WebAuthn) of this manager's app's users: registration, listing and deletion, and
/// the check of an assertion as a sign-in or as a second factor. Every challenge is a one-time
/// token of 32 random bytes (its base64url text is the challenge), single-use, 5 minutes.
extension SessionManager {
    /// Seconds a passkey challenge lives.
    public static let passkeyChallengeSeconds: Int64 = 5 * 60
    /// The COSE algorithms offered, best first: ES256, EdDSA, RS256.
    static let passkeyAlgorithms: [Int64] = [-7, -8, -257]

    /// The user's passkeys, oldest first.
    /// - Throws: `store_unavailable`.
    public func passkeys(userID: String) async throws -> [PasskeyRecord] {
        let app = configuration.app
        return try await store.read { tx in try await tx.passkeys(app: app, userID: userID) }
    }

    /// `PublicKeyCredentialCreationOptionsJSON` for a new passkey of `userID`: a new challenge,
    /// the user's passkeys as `excludeCredentials`, resident key preferred, attestation `none`.
    /// - Parameters:
    ///   - userName: what the authenticator shows for the account (an email).
    ///   - rpName: the relying party's name (the app).
    /// - Throws: `store_unavailable`, `internal_error` (random generator).
    public func passkeyRegistrationOptions(userID: String, userName: String, rpName: String, relyingParty: WebAuthnRelyingParty) async throws
        -> JSONValue
    {
        let (app, now) = (configuration.app, configuration.now)
        let (challenge, existing) = try await store.transaction { tx in
            let issued = try await tx.issueOneTimeToken(
                purpose: .passkeyRegistration, app: app, subject: userID, createdAt: now, expiresAt: now + Self.passkeyChallengeSeconds)
            return (issued.token, try await tx.passkeys(app: app, userID: userID))
        }
        return .object([
            "rp": .object(["id": .string(relyingParty.id), "name": .string(rpName)]),
            "user": .object([
                "id": .string(Base64URL.encode(Array(userID.utf8))), "name": .string(userName), "displayName": .string(userName),
            ]),
            "challenge": .string(challenge),
            "pubKeyCredParams": .array(Self.passkeyAlgorithms.map { .object(["type": "public-key", "alg": .int($0)]) }),
            "timeout": .int(Self.passkeyChallengeSeconds * 1000),
            "excludeCredentials": Self.descriptors(existing),
            "authenticatorSelection": .object([
                "residentKey": "preferred", "requireResidentKey": .bool(false),
                "userVerification": .string(relyingParty.userVerification.rawValue),
            ]),
            "attestation": "none",
        ])
    }

    /// Verifies a registration against the user's live challenge and stores the passkey. The
    /// challenge is spent with the insert, in one transaction.
    /// - Throws: `webauthn_challenge_mismatch` (unknown, used, expired or another user's
    ///   challenge), the ceremony's codes (``WebAuthnRelyingParty/verifyRegistration(clientDataJSON:attestationObject:challenge:)``),
    ///   `invalid_input` (the passkey is registered already), `store_unavailable`.
    public func registerPasskey(
        userID: String, response: WebAuthnRegistrationResponse, name: String, relyingParty: WebAuthnRelyingParty
    ) async throws -> PasskeyRecord {
        let (app, now) = (configuration.app, configuration.now)
        let stale = TokenError(.webAuthnChallengeMismatch, "the challenge is unknown, used or expired: ask for new options")
        guard let challenge = WebAuthnRelyingParty.challenge(in: response.clientDataJSON),
            let record = try await store.read({ tx in try await tx.lookUpOneTimeToken(challenge, purpose: .passkeyRegistration, app: app) }),
            record.state(at: now) == .live, record.subject == userID
        else { throw stale }
        let verified = try relyingParty.verifyRegistration(
            clientDataJSON: response.clientDataJSON, attestationObject: response.attestationObject,
            challenge: try Base64URL.decode(challenge, what: "challenge"))
        let id = Base64URL.encode(verified.id)
        guard id == response.id else { throw TokenError(.webAuthnMalformed, "the credential's id is not the attested credential's") }
        let passkey = PasskeyRecord(
            id: id, app: app, userID: userID, name: name, publicKey: try verified.publicKey.jsonString(), algorithm: verified.algorithm.rawValue,
            signCount: Int64(verified.signCount), createdAt: now)
        try await store.transaction { tx in
            guard case .consumed = try await tx.consumeOneTimeToken(challenge, purpose: .passkeyRegistration, app: app, at: now) else { throw stale }
            guard try await tx.insertPasskey(passkey) else { throw TokenError(.invalidInput, "this passkey is registered already") }
        }
        return passkey
    }

    /// Deletes the user's passkey `id`. When it was the user's last factor, the recovery codes go too.
    /// - Returns: `false` when the user has no such passkey.
    /// - Throws: `store_unavailable`.
    public func deletePasskey(userID: String, id: String) async throws -> Bool {
        let app = configuration.app
        return try await store.transaction { tx in
            guard try await tx.deletePasskey(app: app, userID: userID, id: id) else { return false }
            if try await tx.passkeys(app: app, userID: userID).isEmpty, var row = try await tx.mfaFactors(app: app, userID: userID, forUpdate: true),
                !row.totpEnabled
            {
                row.recoveryCodes = []
                if row.sealedTOTPSecret == nil && row.lockedUntil == nil {
                    _ = try await tx.deleteMFAFactors(app: app, userID: userID)
                } else {
                    try await tx.saveMFAFactors(row)
                }
            }
            return true
        }
    }

    /// `PublicKeyCredentialRequestOptionsJSON` of a passkey sign-in (empty `allowCredentials`:
    /// discoverable credentials) and its `challenge_id` (the challenge itself).
    /// - Throws: `store_unavailable`, `internal_error` (random generator).
    public func passkeyLoginOptions(relyingParty: WebAuthnRelyingParty) async throws -> (options: JSONValue, challengeID: String) {
        let (app, now) = (configuration.app, configuration.now)
        let issued = try await store.transaction { tx in
            try await tx.issueOneTimeToken(
                purpose: .passkeyLogin, app: app, subject: "", createdAt: now, expiresAt: now + Self.passkeyChallengeSeconds)
        }
        return (Self.requestOptions(challenge: issued.token, allow: [], relyingParty: relyingParty), issued.token)
    }

    /// Checks a passkey sign-in: the challenge `challengeID` is spent whatever the outcome, the
    /// passkey is found by the response's id, its `userHandle` must name its owner, then the
    /// ceremony (with the user's lock, and the counter stored).
    ///
    /// Nobody but the key's holder can reach the owner's lock here: an assertion counts toward
    /// it (and learns that it holds) only once its signature verifies, and every refusal before
    /// that (no such passkey, another user handle, a bad signature, client data or flags) is
    /// the one answer ``unacceptedPasskey``, so that a credential id reveals nothing and five
    /// bogus assertions naming a victim's id lock nothing.
    /// - Throws: `store_unavailable`.
    public func checkPasskeyLogin(challengeID: String, response: WebAuthnAssertionResponse, relyingParty: WebAuthnRelyingParty) async throws
        -> PasskeyCheck
    {
        let (app, now) = (configuration.app, configuration.now)
        return try await store.transaction { tx in
            guard case .consumed = try await tx.consumeOneTimeToken(challengeID, purpose: .passkeyLogin, app: app, at: now) else {
                return .refused(reason: "the challenge is unknown, used or expired: ask for new options")
            }
            guard let passkey = try await tx.passkey(app: app, id: response.id, forUpdate: true),
                let handle = response.userHandle, ConstantTime.equals(handle, Array(passkey.userID.utf8))
            else { return .refused(reason: Self.unacceptedPasskey) }
            return try await Self.check(
                tx, passkey: passkey, response: response, challenge: challengeID, relyingParty: relyingParty, now: now, signedOnly: true)
        }
    }

    /// `PublicKeyCredentialRequestOptionsJSON` of a second factor for `userID`, listing the
    /// user's passkeys, its challenge bound to `binding` (what the first step gave the client).
    /// - Throws: `store_unavailable`, `internal_error` (random generator).
    public func passkeySecondFactorOptions(userID: String, binding: String, relyingParty: WebAuthnRelyingParty) async throws -> JSONValue {
        let (app, now) = (configuration.app, configuration.now)
        let (challenge, passkeys) = try await store.transaction { tx in
            let issued = try await tx.issueOneTimeToken(
                purpose: .passkeySecondFactor, app: app, subject: userID, payload: OneTimeToken.hash(binding), createdAt: now,
                expiresAt: now + Self.passkeyChallengeSeconds)
            return (issued.token, try await tx.passkeys(app: app, userID: userID))
        }
        return Self.requestOptions(challenge: challenge, allow: passkeys, relyingParty: relyingParty)
    }

    /// Checks a passkey as `userID`'s second factor: the challenge must be one issued for
    /// `binding` and that user (it is spent whatever the outcome), the passkey must be the user's,
    /// then the ceremony, with the lock shared with codes. `accepted` runs in the same
    /// transaction on success (throwing there rolls it all back).
    /// - Throws: `store_unavailable`; what `accepted` throws.
    public func checkPasskeySecondFactor(
        userID: String, binding: String, response: WebAuthnAssertionResponse, relyingParty: WebAuthnRelyingParty,
        accepted: @escaping @Sendable (any SessionStoreTransaction) async throws -> Void
    ) async throws -> MFACheck {
        let (app, now) = (configuration.app, configuration.now)
        let check: PasskeyCheck = try await store.transaction { tx in
            guard let challenge = WebAuthnRelyingParty.challenge(in: response.clientDataJSON),
                case .consumed(let record) = try await tx.consumeOneTimeToken(challenge, purpose: .passkeySecondFactor, app: app, at: now),
                record.subject == userID, record.payload == OneTimeToken.hash(binding)
            else { return try await Self.countFailure(tx, app: app, userID: userID, now: now, reason: "the challenge is unknown, used or expired") }
            guard let passkey = try await tx.passkey(app: app, id: response.id, forUpdate: true), passkey.userID == userID else {
                return try await Self.countFailure(tx, app: app, userID: userID, now: now, reason: "the passkey is not this user's")
            }
            if let handle = response.userHandle, !ConstantTime.equals(handle, Array(userID.utf8)) {
                return try await Self.countFailure(tx, app: app, userID: userID, now: now, reason: "the user handle is not the passkey's owner")
            }
            let check = try await Self.check(tx, passkey: passkey, response: response, challenge: challenge, relyingParty: relyingParty, now: now)
            if case .accepted = check { try await accepted(tx) }
            return check
        }
        switch check {
        case .accepted: return .accepted
        case .refused: return .refused
        case .locked(let after): return .locked(retryAfter: after)
        }
    }

    /// The one refusal of a passkey sign-in whose signature did not verify, whatever failed.
    static let unacceptedPasskey = "the passkey was not accepted: ask for new options and try again"

    /// The ceremony of an assertion by `passkey`, under the user's lock: a failure is counted, a
    /// success resets the count and stores the new counter and the time of use. With
    /// `signedOnly` (a sign-in, where the credential id is all the caller showed), the lock is
    /// looked at and a failure counted only once the signature verified (a cloned counter), and
    /// an earlier failure is ``unacceptedPasskey``, uncounted.
    private static func check(
        _ tx: any SessionStoreTransaction, passkey: PasskeyRecord, response: WebAuthnAssertionResponse, challenge: String,
        relyingParty: WebAuthnRelyingParty, now: Int64, signedOnly: Bool = false
    ) async throws -> PasskeyCheck {
        let row = try await tx.mfaFactors(app: passkey.app, userID: passkey.userID, forUpdate: true)
        let locked = row?.lockedUntil.flatMap { $0 > now ? $0 - now : nil }
        if let locked, !signedOnly { return .locked(retryAfter: locked) }
        let verified: VerifiedAssertion
        do {
            guard let algorithm = JWSAlgorithm(rawValue: passkey.algorithm) else { throw TokenError(.webAuthnUnsupported, "stored algorithm") }
            verified = try relyingParty.verifyAssertion(
                clientDataJSON: response.clientDataJSON, authenticatorData: response.authenticatorData, signature: response.signature,
                challenge: try Base64URL.decode(challenge, what: "challenge"), publicKey: try JWK(json: passkey.publicKey), algorithm: algorithm,
                storedSignCount: UInt32(clamping: passkey.signCount))
        } catch let e as TokenError {
            // The counter is checked after the signature: only that refusal comes from the key's holder.
            if signedOnly, e.code != .webAuthnCounterRegressed { return .refused(reason: unacceptedPasskey) }
            return try await countFailure(tx, app: passkey.app, userID: passkey.userID, now: now, reason: e.message)
        }
        if let locked { return .locked(retryAfter: locked) }
        if var r = row, r.failedAttempts != 0 || r.lockedUntil != nil {
            r.failedAttempts = 0
            r.lockedUntil = nil
            r.updatedAt = now
            try await tx.saveMFAFactors(r)
        }
        try await tx.recordPasskeyUse(app: passkey.app, id: passkey.id, signCount: Int64(verified.signCount), at: now)
        return .accepted(userID: passkey.userID, userVerified: verified.userVerified)
    }

    /// Counts a failed assertion for `userID` (the ``mfaFailureLimit``-th starts the lock) and
    /// answers it refused; a locked user's attempt is answered locked and not counted.
    private static func countFailure(_ tx: any SessionStoreTransaction, app: String, userID: String, now: Int64, reason: String) async throws
        -> PasskeyCheck
    {
        var row = try await tx.mfaFactors(app: app, userID: userID, forUpdate: true) ?? MFAFactorsRecord(userID: userID, app: app, updatedAt: now)
        if let until = row.lockedUntil, until > now { return .locked(retryAfter: until - now) }
        row.lockedUntil = nil
        row.failedAttempts += 1
        if row.failedAttempts >= mfaFailureLimit {
            row.failedAttempts = 0
            row.lockedUntil = now + mfaLockSeconds
        }
        row.updatedAt = now
        try await tx.saveMFAFactors(row)
        return .refused(reason: reason)
    }

    private static func requestOptions(challenge: String, allow: [PasskeyRecord], relyingParty: WebAuthnRelyingParty) -> JSONValue {
        .object([
            "challenge": .string(challenge), "timeout": .int(passkeyChallengeSeconds * 1000), "rpId": .string(relyingParty.id),
            "allowCredentials": descriptors(allow), "userVerification": .string(relyingParty.userVerification.rawValue),
        ])
    }

    private static func descriptors(_ passkeys: [PasskeyRecord]) -> JSONValue {
        .array(passkeys.map { .object(["type": "public-key", "id": .string($0.id)]) })
    }
}
