import JOSE

/// One named step of a store's schema, applied once, in order, inside a transaction.
///
/// Steps are append-only: a shipped step is never edited, a change is a new step. Each driver
/// spells the steps in its own SQL dialect, under the names of ``SessionSchema/stepNames``.
public struct SchemaMigration: Sendable {
    /// 1, 2, 3, …: the schema version after this step.
    public let version: Int
    public let name: String
    /// The statements of the step, run in order.
    public let statements: [String]

    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

/// The schema every store driver implements.
public enum SessionSchema {
    /// The names of the migration steps, in order; the schema version is their count.
    public static let stepNames = [
        "create_core_tables",  // 1: users, identities, families (sessions since 7), refresh_tokens, signing_keys
        "add_grace_successor",  // 2: refresh_tokens.successor_hash, sealed_successor
        "add_family_idle_expiry",  // 3: idle_expires_at of the sessions table (back-filled), indexes
        // 4: identities keyed by (provider, issuer, subject); signing_keys.access_token_lifetime, revoked_at
        "add_identity_issuer_and_key_revocation",
        "add_server_tables",  // 5: users.disabled_at, sessions.device, identities.sealed_provider_token, api_keys
        "add_accounts",  // 6: accounts, account_tokens, throttle_events
        "rename_families_to_sessions",  // 7: table families → sessions, refresh_tokens.family_id → session_id, their indexes
        "add_throttle_count",  // 8: PostgreSQL: the function counting a throttle event in one statement (SQLite: nothing)
        "add_apps",  // 9: users.app; identities keyed by (app, provider, issuer, subject), accounts by (app, email_key)
        "add_account_ids",  // 10: accounts.id (an account before its user), nullable unique accounts.user_id; account_tokens.account_id
        "add_api_key_object_ids",  // 11: api_keys.id as ObjectIds (existing keys given one); sessions.api_key_id
        "add_one_time_tokens",  // 12: one_time_tokens (purpose, hash, app, subject, payload, expiry, use); account_tokens moved in, dropped
        "add_session_sign_in",  // 13: sessions.op_session, auth_time, amr, scope (an OpenID Connect sign-in's), index on op_session
        "add_consents",  // 14: consents (user_id, client_id, scopes): what a user allowed an OpenID Connect client
        "add_mfa_factors",  // 15: mfa_factors (per user: the sealed TOTP secret, its last step, recovery code digests, the failure lock)
        "add_passkeys",  // 16: passkeys (WebAuthn credentials: owner, app, name, public key, algorithm, counter, times)
    ]

    /// The newest schema version this code knows.
    public static var latestVersion: Int { stepNames.count }

    /// The steps to apply to a store at `applied` to bring it to `target` (default: latest).
    ///
    /// - Parameters:
    ///   - applied: the `(version, name)` pairs recorded in the store.
    ///   - available: the driver's steps; must match ``stepNames``.
    /// - Throws: `store_too_new` when the store records a step this code does not know;
    ///   `invalid_configuration` when a recorded step's name differs from ours (a store of another program).
    public static func pendingSteps(
        applied: [(version: Int, name: String)], available: [SchemaMigration],
        upTo target: Int? = nil
    ) throws -> [SchemaMigration] {
        precondition(
            available.map(\.name) == stepNames && available.map(\.version) == Array(1...stepNames.count),
            "driver migrations must match SessionSchema.stepNames")
        let known = Dictionary(uniqueKeysWithValues: available.map { ($0.version, $0.name) })
        let current = applied.map(\.version).max() ?? 0
        if current > latestVersion {
            let newest = applied.max { $0.version < $1.version }!
            throw TokenError(
                .storeTooNew,
                "store schema is at version \(current) (step \"\(newest.name.prefix(64))\"); this tokentool knows versions up to \(latestVersion)")
        }
        for step in applied where known[step.version] != step.name {
            throw TokenError(
                .invalidConfiguration,
                "store schema step \(step.version) is \"\(step.name.prefix(64))\"; expected \"\(known[step.version] ?? "")\": not a tokentool session store"
            )
        }
        let done = Set(applied.map(\.version))
        let limit = target ?? latestVersion
        return available.filter { !done.contains($0.version) && $0.version <= limit }
    }
}
