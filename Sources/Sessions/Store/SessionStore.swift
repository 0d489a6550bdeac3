/// A place to keep users, identities, sessions (with their refresh tokens) and signing keys.
///
/// Drivers (`SessionStoreSQLite`, `SessionStorePostgres`) implement this small protocol;
/// every rule (rotation, reuse detection, grace, key retention) lives in ``SessionManager``
/// and runs inside ``transaction(_:)``, so both stores behave alike and one conformance suite
/// tests them both.
///
/// Drivers must run each transaction atomically and isolated enough that
/// ``SessionStoreTransaction/spendRefreshToken(hash:at:successorHash:sealedSuccessor:)`` and
/// ``SessionStoreTransaction/consumeOneTimeToken(purpose:hash:app:at:)`` succeed for exactly
/// one of any number of concurrent callers.
public protocol SessionStore: Sendable {
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws
    /// (the error is rethrown unchanged).
    /// - Throws: `store_unavailable` when the store fails; whatever `body` throws.
    func transaction<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T

    /// Runs `body`'s reads outside a transaction where the store can: each statement sees what is
    /// committed when it runs (no snapshot shared between them, no locks), without the round
    /// trips of `BEGIN` and `COMMIT`. For lookups whose statements need no consistency with each
    /// other (each later read is at least as fresh as the earlier ones); never for writes.
    /// - Throws: `store_unavailable` when the store fails; whatever `body` throws.
    func read<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T

    /// The schema version the store is at (the number of migrations applied).
    /// - Throws: `store_unavailable`.
    func schemaVersion() async throws -> Int

    /// Releases connections. The store is unusable afterwards.
    func close() async throws

    /// Counts the events of `key` at or after `since` and, when `record` is set and there are
    /// fewer than `limit`, adds one at `time` (kept until `expiresAt`), atomically with respect
    /// to every other counting on `key` from any instance sharing the store. The default runs
    /// ``SessionStoreTransaction/lockThrottleKey(_:)``, ``SessionStoreTransaction/throttleEvents(key:since:)``
    /// and ``SessionStoreTransaction/insertThrottleEvent(key:at:expiresAt:)`` in one transaction;
    /// a driver may do the same in fewer round trips.
    /// - Returns: the count and the oldest event before this one was added.
    /// - Throws: `store_unavailable`.
    func countThrottleEvent(key: String, since: Int64, limit: Int, at time: Int64, expiresAt: Int64, record: Bool) async throws -> (
        count: Int, oldest: Int64?
    )
}

extension SessionStore {
    /// The default: `body` in one ``transaction(_:)`` (for a store whose transactions cost no
    /// round trips of their own, like SQLite's).
    public func read<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T {
        try await transaction(body)
    }

    /// The default: the key's lock, the count and the insert in one ``transaction(_:)``.
    public func countThrottleEvent(key: String, since: Int64, limit: Int, at time: Int64, expiresAt: Int64, record: Bool) async throws -> (
        count: Int, oldest: Int64?
    ) {
        try await transaction { tx in
            try await tx.lockThrottleKey(key)
            let (count, oldest) = try await tx.throttleEvents(key: key, since: since)
            if record, count < limit { try await tx.insertThrottleEvent(key: key, at: time, expiresAt: expiresAt) }
            return (count, oldest)
        }
    }
}

/// The operations available inside one store transaction.
///
/// All methods are async; drivers translate their own failures into `store_unavailable`.
public protocol SessionStoreTransaction: Sendable {
    // MARK: users and identities
    func insertUser(_ user: UserRecord) async throws
    func user(id: String) async throws -> UserRecord?
    /// Deletes the user, its identities, its API keys, its second factors, its remembered consents,
    /// its sessions and their refresh tokens, and the one-time tokens of its app whose subject is
    /// the user (authorization codes, OP sessions); nothing else.
    /// - Returns: `false` when no such user exists.
    func deleteUser(id: String) async throws -> Bool
    /// Inserts an identity unless `(app, provider, issuer, subject)` already exists.
    /// - Returns: `false` when it already exists (whoever owns it).
    func insertIdentity(_ identity: IdentityRecord) async throws -> Bool
    func identity(app: String, provider: String, issuer: String, subject: String) async throws -> IdentityRecord?
    func identities(userID: String) async throws -> [IdentityRecord]

    // MARK: sessions and refresh tokens
    func insertSession(_ session: SessionRecord) async throws
    /// Reads a session; with `forUpdate`, locks it until the transaction ends (where the store has row locks).
    func session(id: String, forUpdate: Bool) async throws -> SessionRecord?
    func sessions(userID: String) async throws -> [SessionRecord]
    /// Marks a session revoked unless it already is. - Returns: `true` if this call revoked it.
    func revokeSession(id: String, at time: Int64, reason: String) async throws -> Bool
    func touchSession(id: String, lastUsedAt: Int64, idleExpiresAt: Int64) async throws
    func insertRefreshToken(_ token: RefreshTokenRecord) async throws
    func refreshToken(hash: String) async throws -> RefreshTokenRecord?
    /// The one conditional update of a rotation:
    /// `UPDATE … SET used_at = at, successor_hash = …, sealed_successor = … WHERE hash = $hash AND used_at IS NULL`.
    /// - Returns: `true` for the single caller whose update changed the row.
    func spendRefreshToken(hash: String, at time: Int64, successorHash: String, sealedSuccessor: String) async throws -> Bool
    /// Deletes sessions that are revoked or past either lifetime at `now` (with their tokens),
    /// and retired signing keys no longer published at `now`.
    func purge(now: Int64) async throws -> PurgeCounts
    /// Erases the sealed successor (and its hash) of every token spent at or before `time`: past
    /// the grace interval nothing may open it. The spent rows stay while their session lives, so
    /// presenting one again is still detected as reuse.
    /// - Returns: how many rows were cleared.
    func clearSpentSuccessors(usedBefore time: Int64) async throws -> Int

    // MARK: signing keys
    /// Inserts a key. An active key (``SigningKeyRecord/retiredAt`` `nil`) is inserted only if no
    /// other key is active. - Returns: `false` when another key is already active.
    func insertSigningKey(_ key: SigningKeyRecord) async throws -> Bool
    /// Retires the active key, if any. - Returns: its key id.
    func retireActiveSigningKey(at time: Int64, publishUntil: Int64) async throws -> String?
    func activeSigningKey() async throws -> SigningKeyRecord?
    /// Raises the key's recorded ``SigningKeyRecord/accessTokenLifetime`` to `lifetime` if it is lower (or unset).
    func recordSigningKeyUse(keyID: String, accessTokenLifetime lifetime: Int64) async throws
    /// Revokes a key: retired if active, unpublished at `time`, marked revoked.
    /// - Returns: `false` when no key has `keyID`.
    func revokeSigningKey(keyID: String, at time: Int64) async throws -> Bool
    /// Every key, oldest first (`created_at`); among keys of the same second, retired ones by
    /// retirement time before the active one; then by key id. Every store returns this order.
    func signingKeys() async throws -> [SigningKeyRecord]

    // MARK: server state (schema step 4)
    /// Sets or clears a user's `disabled_at`. - Returns: `false` when no such user exists.
    func setUserDisabled(id: String, at time: Int64?) async throws -> Bool
    /// Stores (or clears) the sealed provider token of an app's identity (built-in provider: empty issuer).
    func setSealedProviderToken(app: String, provider: String, subject: String, sealed: String?) async throws
    /// Users whose only identities are of `provider`, created before `before` and with no
    /// session used since then; at most `limit`.
    func idleUsers(onlyProvider provider: String, before: Int64, limit: Int) async throws -> [String]
    /// Inserts a key unless its user already has one of that name. - Returns: `false` on a name clash.
    func insertAPIKey(_ key: APIKeyRecord) async throws -> Bool
    /// A user's keys, oldest first.
    func apiKeys(userID: String) async throws -> [APIKeyRecord]
    func apiKey(hash: String) async throws -> APIKeyRecord?
    /// - Returns: `false` when the user has no key with that id.
    func setAPIKeyDisabled(id: String, userID: String, disabled: Bool) async throws -> Bool
    /// - Returns: `false` when the user has no key with that id.
    func deleteAPIKey(id: String, userID: String) async throws -> Bool
    /// Revokes the live sessions an API key opened. - Returns: how many.
    func revokeSessions(apiKeyID: String, at time: Int64, reason: String) async throws -> Int
    /// Revokes the live sessions issued through the OP session `opSessionID` (their `op_session`,
    /// schema step 13). - Returns: how many.
    func revokeSessions(opSessionID: String, at time: Int64, reason: String) async throws -> Int

    // MARK: email/password accounts and throttling
    /// Inserts an account unless one with the same ``AccountRecord/app`` and ``AccountRecord/emailKey`` exists.
    /// - Returns: `false` when the email is taken in that app.
    func insertAccount(_ account: AccountRecord) async throws -> Bool
    func account(app: String, emailKey: String) async throws -> AccountRecord?
    /// The account joined to a user, if any.
    func account(userID: String) async throws -> AccountRecord?
    /// Reads an account by id; with `forUpdate`, locks it until the transaction ends (where the store has row locks).
    func account(id: String, forUpdate: Bool) async throws -> AccountRecord?
    /// Joins an account to a user unless it already has one. - Returns: `true` when this call joined it.
    func setAccountUser(id: String, userID: String) async throws -> Bool
    /// Replaces the password hash; with `expected`, only if the stored hash is still that one.
    /// - Returns: `true` when a row changed.
    func updatePasswordHash(accountID: String, hash: String, expected: String?) async throws -> Bool
    /// Sets `confirmed_at` unless already set. - Returns: `true` when this call confirmed it.
    func confirmAccount(id: String, at time: Int64) async throws -> Bool
    // MARK: one-time tokens (schema step 12), see OneTimeTokens.swift
    /// Stores a token (its hash; `(purpose, hash)` is the key).
    func insertOneTimeToken(_ token: OneTimeTokenRecord) async throws
    /// The token of `purpose` and `app` with this hash, used or not, expired or not, unchanged.
    func oneTimeToken(purpose: OneTimeTokenPurpose, hash: String, app: String) async throws -> OneTimeTokenRecord?
    /// Consumes the token in one conditional statement: `UPDATE one_time_tokens SET used_at = at
    /// WHERE purpose = $purpose AND hash = $hash AND app = $app AND used_at IS NULL AND expires_at > at
    /// RETURNING …`.
    /// - Returns: the token's row, for the single caller (of any number, concurrent or not) whose
    ///   update changed it; `nil` for every other.
    func consumeOneTimeToken(purpose: OneTimeTokenPurpose, hash: String, app: String, at time: Int64) async throws -> OneTimeTokenRecord?
    /// Ends the live tokens of `purpose` of `subject` in `app` (their `expires_at` becomes `at`),
    /// so that a new one is the only live one. - Returns: how many ended.
    func expireOneTimeTokens(purpose: OneTimeTokenPurpose, app: String, subject: String, at time: Int64) async throws -> Int
    /// The live tokens of `purpose` of `subject` in `app` (not used, not expired at `at`), newest
    /// first, at most `limit`.
    func liveOneTimeTokens(purpose: OneTimeTokenPurpose, app: String, subject: String, at time: Int64, limit: Int) async throws
        -> [OneTimeTokenRecord]
    /// Deletes every token used or expired at or before `time` (the sweep passes now minus the
    /// time a used or expired token is kept to be told apart from an unknown one).
    /// - Returns: how many rows were deleted.
    func deleteOneTimeTokens(endedBefore time: Int64) async throws -> Int
    // MARK: throttling
    /// Serialises every counting on `key` until the transaction ends (a row or advisory lock
    /// where the store has them; SQLite's transactions are serial already).
    func lockThrottleKey(_ key: String) async throws
    /// The number of events of `key` at or after `since`, and the oldest of them.
    func throttleEvents(key: String, since: Int64) async throws -> (count: Int, oldest: Int64?)
    func insertThrottleEvent(key: String, at time: Int64, expiresAt: Int64) async throws
    // MARK: apps (schema step 9)
    /// Gives users of the empty app (rows written before schema step 9) the app `app`, with their
    /// identities, accounts and the accounts' confirm and reset tokens: with `bySessions`, only
    /// users whose most recently used session has `client_id` = `app`; without, every such user.
    /// An identity or account whose key is
    /// already taken in `app` stays where it is. Sessions of the users moved whose `client_id` is
    /// another app of `apps` end at `time` (reason `app`): a user belongs to one app.
    /// - Returns: how many users moved.
    func adoptLegacyUsers(app: String, bySessions: Bool, apps: [String], at time: Int64) async throws -> Int

    // MARK: second factors (schema step 15)
    /// The user's second factors in `app`; with `forUpdate`, locked until the transaction ends
    /// (where the store has row locks), so that a code is accepted once and failures are counted
    /// across instances.
    func mfaFactors(app: String, userID: String, forUpdate: Bool) async throws -> MFAFactorsRecord?
    /// Inserts the row, or replaces the one of its user and app.
    func saveMFAFactors(_ record: MFAFactorsRecord) async throws
    /// - Returns: `false` when the user has no row in `app`.
    func deleteMFAFactors(app: String, userID: String) async throws -> Bool

    // MARK: passkeys (schema step 16)
    /// - Returns: `false` when a passkey with the same credential id exists (in any app).
    func insertPasskey(_ passkey: PasskeyRecord) async throws -> Bool
    /// The passkey `id` of `app`; with `forUpdate`, locked until the transaction ends (where the
    /// store has row locks), so that two assertions by one authenticator are counted in turn.
    func passkey(app: String, id: String, forUpdate: Bool) async throws -> PasskeyRecord?
    /// The user's passkeys in `app`, oldest first.
    func passkeys(app: String, userID: String) async throws -> [PasskeyRecord]
    /// Stores the counter and the time of a verified assertion.
    func recordPasskeyUse(app: String, id: String, signCount: Int64, at time: Int64) async throws
    /// Deletes the user's passkey `id`; `false` when the user has no such passkey in `app`.
    func deletePasskey(app: String, userID: String, id: String) async throws -> Bool
    /// Deletes every passkey of the user in `app`; returns how many.
    func deletePasskeys(app: String, userID: String) async throws -> Int

    /// Deletes throttle events past their window, and one-time tokens used or expired at or before
    /// `now` minus ``OneTimeTokenRecord/keptAfterEnd`` (``deleteOneTimeTokens(endedBefore:)``).
    /// - Returns: the number of rows removed.
    func purgeAccounts(now: Int64) async throws -> Int

    // MARK: remembered consents (schema step 14), see Consents.swift
    /// What `userID` allowed `clientID`, if anything.
    func consent(userID: String, clientID: String) async throws -> ConsentRecord?
    /// Stores `consent`, replacing the user's earlier one for the same client.
    func saveConsent(_ consent: ConsentRecord) async throws
}

extension SessionStoreTransaction {
    /// A built-in provider's identity (empty issuer) in the empty app.
    public func identity(provider: String, subject: String) async throws -> IdentityRecord? {
        try await identity(app: "", provider: provider, issuer: "", subject: subject)
    }

    /// An identity of the empty app (a library's one space of users).
    public func identity(provider: String, issuer: String, subject: String) async throws -> IdentityRecord? {
        try await identity(app: "", provider: provider, issuer: issuer, subject: subject)
    }

    /// The account of the empty app (a library's one space of users) registered under `emailKey`.
    public func account(emailKey: String) async throws -> AccountRecord? {
        try await account(app: "", emailKey: emailKey)
    }
}
