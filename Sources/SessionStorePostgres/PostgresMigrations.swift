import Sessions

/// The schema steps in PostgreSQL's dialect. Append-only: never edit a shipped step.
enum PostgresMigrations {
    static let all: [SchemaMigration] = [
        SchemaMigration(
            version: 1, name: "create_core_tables",
            statements: [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    created_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE identities (
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    email TEXT,
                    email_verified BOOLEAN NOT NULL DEFAULT FALSE,
                    profile TEXT,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (provider, subject))
                """,
                "CREATE INDEX identities_user ON identities(user_id)",
                """
                CREATE TABLE families (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    client_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    last_used_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    revoke_reason TEXT)
                """,
                """
                CREATE TABLE refresh_tokens (
                    hash TEXT PRIMARY KEY,
                    family_id TEXT NOT NULL REFERENCES families(id) ON DELETE CASCADE,
                    parent_hash TEXT,
                    created_at BIGINT NOT NULL,
                    used_at BIGINT)
                """,
                """
                CREATE TABLE signing_keys (
                    kid TEXT PRIMARY KEY,
                    alg TEXT NOT NULL,
                    public_jwk TEXT NOT NULL,
                    private_jwk TEXT NOT NULL,
                    sealed BOOLEAN NOT NULL DEFAULT FALSE,
                    created_at BIGINT NOT NULL,
                    retired_at BIGINT,
                    publish_until BIGINT,
                    active BOOLEAN UNIQUE CHECK (active))
                """,
            ]),
        SchemaMigration(
            version: 2, name: "add_grace_successor",
            statements: [
                "ALTER TABLE refresh_tokens ADD COLUMN successor_hash TEXT",
                "ALTER TABLE refresh_tokens ADD COLUMN sealed_successor TEXT",
            ]),
        SchemaMigration(
            version: 3, name: "add_family_idle_expiry",
            statements: [
                "ALTER TABLE families ADD COLUMN idle_expires_at BIGINT",
                // Existing sessions keep their absolute end; the idle limit starts with their next use.
                "UPDATE families SET idle_expires_at = expires_at",
                "ALTER TABLE families ALTER COLUMN idle_expires_at SET NOT NULL",
                "CREATE INDEX families_user ON families(user_id)",
                "CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id)",
            ]),
        SchemaMigration(
            version: 4, name: "add_identity_issuer_and_key_revocation",
            statements: [
                // Identities are keyed by (provider, issuer, subject). Built-in providers keep an empty
                // issuer; custom providers' rows take the `iss` their verified claims recorded.
                "ALTER TABLE identities ADD COLUMN issuer TEXT NOT NULL DEFAULT ''",
                """
                UPDATE identities SET issuer = profile::jsonb #>> '{raw_claims,iss}'
                WHERE provider NOT IN ('google', 'apple', 'facebook') AND profile IS NOT NULL
                  AND jsonb_typeof(profile::jsonb #> '{raw_claims,iss}') = 'string'
                """,
                "ALTER TABLE identities DROP CONSTRAINT identities_pkey",
                "ALTER TABLE identities ADD PRIMARY KEY (provider, issuer, subject)",
                "ALTER TABLE signing_keys ADD COLUMN access_token_lifetime BIGINT",
                "ALTER TABLE signing_keys ADD COLUMN revoked_at BIGINT",
            ]),
        SchemaMigration(
            version: 5, name: "add_server_tables",
            statements: [
                "ALTER TABLE users ADD COLUMN disabled_at BIGINT",
                "ALTER TABLE families ADD COLUMN device TEXT",
                "ALTER TABLE identities ADD COLUMN sealed_provider_token TEXT",
                """
                CREATE TABLE api_keys (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    hash TEXT NOT NULL UNIQUE,
                    disabled BOOLEAN NOT NULL DEFAULT FALSE,
                    created_at BIGINT NOT NULL,
                    UNIQUE (user_id, name))
                """,
            ]),
        accounts,
        renameFamiliesToSessions,
        throttleCount,
        addApps,
        accountsBeforeUsers,
        apiKeyObjectIDs,
        oneTimeTokens,
        sessionSignIn,
        consents,
        mfaFactors,
        passkeys,
    ]
}

extension PostgresMigrations {
    /// Step 6: email/password accounts, their confirmation and reset tokens, throttle events.
    static let accounts = SchemaMigration(
        version: 6, name: "add_accounts",
        statements: [
            """
            CREATE TABLE accounts (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                email TEXT NOT NULL,
                email_key TEXT NOT NULL UNIQUE,
                password_hash TEXT NOT NULL,
                confirmed_at BIGINT,
                created_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE account_tokens (
                hash TEXT PRIMARY KEY,
                token_id TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                purpose TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT)
            """,
            "CREATE INDEX account_tokens_user ON account_tokens(user_id)",
            """
            CREATE TABLE throttle_events (
                key TEXT NOT NULL,
                at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX throttle_events_key ON throttle_events(key, at)",
            "CREATE INDEX throttle_events_expiry ON throttle_events(expires_at)",
        ])
}

extension PostgresMigrations {
    /// Step 7: "session" is the one word for a sign-in on a device (older schemas said family).
    /// Renames keep every row; the key, foreign-key and index names follow the table's.
    static let renameFamiliesToSessions = SchemaMigration(
        version: 7, name: "rename_families_to_sessions",
        statements: [
            "ALTER TABLE families RENAME TO sessions",
            "ALTER TABLE refresh_tokens RENAME COLUMN family_id TO session_id",
            "ALTER INDEX families_pkey RENAME TO sessions_pkey",
            "ALTER TABLE sessions RENAME CONSTRAINT families_user_id_fkey TO sessions_user_id_fkey",
            "ALTER TABLE refresh_tokens RENAME CONSTRAINT refresh_tokens_family_id_fkey TO refresh_tokens_session_id_fkey",
            "ALTER INDEX families_user RENAME TO sessions_user",
            "ALTER INDEX refresh_tokens_family RENAME TO refresh_tokens_session",
        ])
}

extension PostgresMigrations {
    /// Step 8: a throttle count in one statement, run on its own (autocommit). A VOLATILE
    /// function's queries each take a new snapshot, so the count after the key's lock sees every
    /// event committed before the lock was granted: the same rule as the lock, count and insert
    /// of `Throttle` in a transaction (the same lock key, so both can run side by side), with no
    /// round trip while the lock is held. `synchronous_commit` is off for that statement only: the
    /// lock ends without waiting for the WAL flush (a key's countings are serial, so a flush each
    /// would bound a key to one counting per fsync). The event is visible at once, so the count is
    /// exact; a PostgreSQL crash can lose only events whose WAL no later synchronous commit flushed
    /// (a login's own transactions after its counting flush it).
    static let throttleCount = SchemaMigration(
        version: 8, name: "add_throttle_count",
        statements: [
            """
            CREATE FUNCTION tokentool_count_throttle_event(p_key TEXT, p_since BIGINT, p_limit BIGINT, p_at BIGINT,
                                                           p_expires_at BIGINT, p_record BOOLEAN, OUT n BIGINT, OUT oldest BIGINT)
            LANGUAGE plpgsql VOLATILE AS $$
            BEGIN
                PERFORM set_config('synchronous_commit', 'off', true);
                PERFORM pg_advisory_xact_lock(hashtextextended(p_key, 7305196519));
                SELECT COUNT(*), MIN(at) INTO n, oldest FROM throttle_events WHERE key = p_key AND at >= p_since;
                IF p_record AND n < p_limit THEN
                    INSERT INTO throttle_events (key, at, expires_at) VALUES (p_key, p_at, p_expires_at);
                END IF;
            END
            $$
            """
        ])
}

extension PostgresMigrations {
    /// Step 9: apps are separate: `users.app`, identities keyed by (app, provider, issuer,
    /// subject), accounts by (app, email_key). Earlier rows get the empty app; how a server
    /// adopts them is docs/stores.md "Apps" (`SessionManager.adoptLegacyUsers`).
    static let addApps = SchemaMigration(
        version: 9, name: "add_apps",
        statements: [
            "ALTER TABLE users ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX users_app ON users(app)",
            "ALTER TABLE identities ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE identities DROP CONSTRAINT identities_pkey",
            "ALTER TABLE identities ADD PRIMARY KEY (app, provider, issuer, subject)",
            "ALTER TABLE accounts ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE accounts DROP CONSTRAINT accounts_email_key_key",
            "ALTER TABLE accounts ADD CONSTRAINT accounts_app_email_key UNIQUE (app, email_key)",
        ])
}

extension PostgresMigrations {
    /// Step 10: an account exists before its user: accounts get an id (an existing account's is
    /// its user's id) and a nullable, unique `user_id`; tokens name the account.
    static let accountsBeforeUsers = SchemaMigration(
        version: 10, name: "add_account_ids",
        statements: [
            "ALTER TABLE accounts ADD COLUMN id TEXT",
            "UPDATE accounts SET id = user_id",
            "ALTER TABLE accounts ALTER COLUMN id SET NOT NULL",
            "ALTER TABLE accounts DROP CONSTRAINT accounts_pkey",
            "ALTER TABLE accounts ADD PRIMARY KEY (id)",
            "ALTER TABLE accounts ALTER COLUMN user_id DROP NOT NULL",
            "ALTER TABLE accounts ADD CONSTRAINT accounts_user_id_key UNIQUE (user_id)",
            "ALTER TABLE account_tokens DROP CONSTRAINT account_tokens_user_id_fkey",
            "ALTER TABLE account_tokens RENAME COLUMN user_id TO account_id",
            "ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE",
            "ALTER INDEX account_tokens_user RENAME TO account_tokens_account",
        ])
}

extension PostgresMigrations {
    /// Step 11: API key ids are BSON ObjectIds; an existing key gets its creation time's four
    /// bytes and eight random ones. Sessions remember the API key that opened them.
    static let apiKeyObjectIDs = SchemaMigration(
        version: 11, name: "add_api_key_object_ids",
        statements: [
            """
            UPDATE api_keys SET id = lpad(to_hex(created_at & 4294967295), 8, '0') || substr(md5(random()::text || id), 1, 16)
            WHERE id !~ '^[0-9a-f]{24}$'
            """,
            "ALTER TABLE sessions ADD COLUMN api_key_id TEXT",
            "CREATE INDEX sessions_api_key ON sessions(api_key_id)",
        ])
}

extension PostgresMigrations {
    /// Step 12: one table of one-time tokens; every row of `account_tokens` moves over (its
    /// account's app, its account as the subject, its token id in the payload) and the old table
    /// is dropped.
    static let oneTimeTokens = SchemaMigration(
        version: 12, name: "add_one_time_tokens",
        statements: [
            """
            CREATE TABLE one_time_tokens (
                purpose TEXT NOT NULL,
                hash TEXT NOT NULL,
                app TEXT NOT NULL DEFAULT '',
                subject TEXT NOT NULL,
                payload TEXT NOT NULL DEFAULT '',
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                used_at BIGINT,
                PRIMARY KEY (purpose, hash))
            """,
            "CREATE INDEX one_time_tokens_subject ON one_time_tokens(app, subject, purpose)",
            "CREATE INDEX one_time_tokens_expiry ON one_time_tokens(expires_at)",
            "CREATE INDEX one_time_tokens_used ON one_time_tokens(used_at)",
            """
            INSERT INTO one_time_tokens (purpose, hash, app, subject, payload, created_at, expires_at, used_at)
            SELECT t.purpose, t.hash, a.app, t.account_id, jsonb_build_object('tokenId', t.token_id)::text, t.created_at, t.expires_at, t.used_at
            FROM account_tokens t JOIN accounts a ON a.id = t.account_id
            """,
            "DROP TABLE account_tokens",
        ])
}

extension PostgresMigrations {
    /// Step 15: a user's second factors, one row per user of its app: the TOTP secret sealed
    /// under the master key (pending until `totp_confirmed_at`), the last accepted time step (a
    /// code is accepted once), the recovery codes' digests (space-separated, each removed when
    /// spent), and the lock after consecutive wrong codes.
    static let mfaFactors = SchemaMigration(
        version: 15, name: "add_mfa_factors",
        statements: [
            """
            CREATE TABLE mfa_factors (
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                app TEXT NOT NULL DEFAULT '',
                sealed_totp_secret TEXT,
                totp_confirmed_at BIGINT,
                totp_last_step BIGINT,
                recovery_codes TEXT NOT NULL DEFAULT '',
                failed_attempts INTEGER NOT NULL DEFAULT 0,
                locked_until BIGINT,
                updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX mfa_factors_app ON mfa_factors(app)",
        ])
}

extension PostgresMigrations {
    /// Step 13: an OpenID Connect sign-in's session: `op_session`, `auth_time`, `amr`, `scope`
    /// (nullable; existing sessions have none), and the index ending an OP session's sessions uses.
    static let sessionSignIn = SchemaMigration(
        version: 13, name: "add_session_sign_in",
        statements: [
            "ALTER TABLE sessions ADD COLUMN op_session TEXT",
            "ALTER TABLE sessions ADD COLUMN auth_time BIGINT",
            "ALTER TABLE sessions ADD COLUMN amr TEXT",
            "ALTER TABLE sessions ADD COLUMN scope TEXT",
            "CREATE INDEX sessions_op_session ON sessions(op_session)",
        ])
}
