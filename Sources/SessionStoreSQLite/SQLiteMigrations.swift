import Sessions

/// The schema steps in SQLite's dialect. Append-only: never edit a shipped step.
enum SQLiteMigrations {
    static let all: [SchemaMigration] = [
        SchemaMigration(
            version: 1, name: "create_core_tables",
            statements: [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    created_at INTEGER NOT NULL)
                """,
                """
                CREATE TABLE identities (
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    email TEXT,
                    email_verified INTEGER NOT NULL DEFAULT 0,
                    profile TEXT,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (provider, subject))
                """,
                "CREATE INDEX identities_user ON identities(user_id)",
                """
                CREATE TABLE families (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    client_id TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    last_used_at INTEGER NOT NULL,
                    revoked_at INTEGER,
                    revoke_reason TEXT)
                """,
                """
                CREATE TABLE refresh_tokens (
                    hash TEXT PRIMARY KEY,
                    family_id TEXT NOT NULL REFERENCES families(id) ON DELETE CASCADE,
                    parent_hash TEXT,
                    created_at INTEGER NOT NULL,
                    used_at INTEGER)
                """,
                """
                CREATE TABLE signing_keys (
                    kid TEXT PRIMARY KEY,
                    alg TEXT NOT NULL,
                    public_jwk TEXT NOT NULL,
                    private_jwk TEXT NOT NULL,
                    sealed INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    retired_at INTEGER,
                    publish_until INTEGER,
                    active INTEGER UNIQUE CHECK (active = 1))
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
                "ALTER TABLE families ADD COLUMN idle_expires_at INTEGER",
                // Existing sessions keep their absolute end; the idle limit starts with their next use.
                "UPDATE families SET idle_expires_at = expires_at",
                "CREATE INDEX families_user ON families(user_id)",
                "CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id)",
            ]),
        SchemaMigration(
            version: 4, name: "add_identity_issuer_and_key_revocation",
            statements: [
                // Identities are keyed by (provider, issuer, subject): SQLite cannot change a primary
                // key, so the table is rebuilt. Built-in providers keep an empty issuer; custom
                // providers' rows take the `iss` their verified claims recorded.
                """
                CREATE TABLE identities_v4 (
                    provider TEXT NOT NULL,
                    issuer TEXT NOT NULL DEFAULT '',
                    subject TEXT NOT NULL,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    email TEXT,
                    email_verified INTEGER NOT NULL DEFAULT 0,
                    profile TEXT,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (provider, issuer, subject))
                """,
                """
                INSERT INTO identities_v4 (provider, issuer, subject, user_id, email, email_verified, profile, created_at)
                SELECT provider,
                       CASE WHEN provider NOT IN ('google', 'apple', 'facebook') AND json_valid(profile)
                                 AND json_type(profile, '$.raw_claims.iss') = 'text'
                            THEN json_extract(profile, '$.raw_claims.iss') ELSE '' END,
                       subject, user_id, email, email_verified, profile, created_at
                FROM identities
                """,
                "DROP TABLE identities",
                "ALTER TABLE identities_v4 RENAME TO identities",
                "CREATE INDEX identities_user ON identities(user_id)",
                "ALTER TABLE signing_keys ADD COLUMN access_token_lifetime INTEGER",
                "ALTER TABLE signing_keys ADD COLUMN revoked_at INTEGER",
            ]),
        SchemaMigration(
            version: 5, name: "add_server_tables",
            statements: [
                "ALTER TABLE users ADD COLUMN disabled_at INTEGER",
                "ALTER TABLE families ADD COLUMN device TEXT",
                "ALTER TABLE identities ADD COLUMN sealed_provider_token TEXT",
                """
                CREATE TABLE api_keys (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    hash TEXT NOT NULL UNIQUE,
                    disabled INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    UNIQUE (user_id, name))
                """,
            ]),
        accounts,
        renameFamiliesToSessions,
        // Step 8: PostgreSQL's one-statement throttle count; SQLite's transactions are serial, it has nothing to add.
        SchemaMigration(version: 8, name: "add_throttle_count", statements: []),
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

extension SQLiteMigrations {
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
                confirmed_at INTEGER,
                created_at INTEGER NOT NULL)
            """,
            """
            CREATE TABLE account_tokens (
                hash TEXT PRIMARY KEY,
                token_id TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                purpose TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                used_at INTEGER)
            """,
            "CREATE INDEX account_tokens_user ON account_tokens(user_id)",
            """
            CREATE TABLE throttle_events (
                key TEXT NOT NULL,
                at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL)
            """,
            "CREATE INDEX throttle_events_key ON throttle_events(key, at)",
            "CREATE INDEX throttle_events_expiry ON throttle_events(expires_at)",
        ])
}

extension SQLiteMigrations {
    /// Step 7: "session" is the one word for a sign-in on a device (older schemas said family).
    /// Renames keep every row.
    static let renameFamiliesToSessions = SchemaMigration(
        version: 7, name: "rename_families_to_sessions",
        statements: [
            // SQLite (3.26+) rewrites the foreign key and the indexes that name the renamed table
            // and column; an index cannot be renamed, so the two whose names said family are rebuilt.
            "ALTER TABLE families RENAME TO sessions",
            "ALTER TABLE refresh_tokens RENAME COLUMN family_id TO session_id",
            "DROP INDEX families_user",
            "CREATE INDEX sessions_user ON sessions(user_id)",
            "DROP INDEX refresh_tokens_family",
            "CREATE INDEX refresh_tokens_session ON refresh_tokens(session_id)",
        ])
}

extension SQLiteMigrations {
    /// Step 9: apps are separate. A user belongs to one app (`users.app`); identities are keyed
    /// by (app, provider, issuer, subject) and accounts by (app, email_key), so SQLite rebuilds
    /// both tables. Rows written before this step get the empty app, the one a library or the
    /// CLI uses, so they keep working there; a server adopts them at start
    /// (`SessionManager.adoptLegacyUsers`, docs/security.md): a user whose most recently used
    /// session names one of its apps joins that app, and with exactly one app every other one
    /// joins it too. API keys, account tokens and sessions belong to their user's app.
    static let addApps = SchemaMigration(
        version: 9, name: "add_apps",
        statements: [
            "ALTER TABLE users ADD COLUMN app TEXT NOT NULL DEFAULT ''",
            "CREATE INDEX users_app ON users(app)",
            """
            CREATE TABLE identities_v9 (
                app TEXT NOT NULL DEFAULT '',
                provider TEXT NOT NULL,
                issuer TEXT NOT NULL DEFAULT '',
                subject TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                email TEXT,
                email_verified INTEGER NOT NULL DEFAULT 0,
                profile TEXT,
                created_at INTEGER NOT NULL,
                sealed_provider_token TEXT,
                PRIMARY KEY (app, provider, issuer, subject))
            """,
            """
            INSERT INTO identities_v9 (app, provider, issuer, subject, user_id, email, email_verified, profile, created_at, sealed_provider_token)
            SELECT '', provider, issuer, subject, user_id, email, email_verified, profile, created_at, sealed_provider_token FROM identities
            """,
            "DROP TABLE identities",
            "ALTER TABLE identities_v9 RENAME TO identities",
            "CREATE INDEX identities_user ON identities(user_id)",
            """
            CREATE TABLE accounts_v9 (
                app TEXT NOT NULL DEFAULT '',
                user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                email TEXT NOT NULL,
                email_key TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                confirmed_at INTEGER,
                created_at INTEGER NOT NULL,
                UNIQUE (app, email_key))
            """,
            """
            INSERT INTO accounts_v9 (app, user_id, email, email_key, password_hash, confirmed_at, created_at)
            SELECT '', user_id, email, email_key, password_hash, confirmed_at, created_at FROM accounts
            """,
            "DROP TABLE accounts",
            "ALTER TABLE accounts_v9 RENAME TO accounts",
        ])
}

extension SQLiteMigrations {
    /// Step 10: an account exists before its user (registration makes the account; the first
    /// login makes the user, or a link joins the account to an existing user). Accounts get an
    /// id (an existing account's is its user's id) and a nullable, unique `user_id`; tokens name
    /// the account. Both tables are rebuilt; every row is kept.
    static let accountsBeforeUsers = SchemaMigration(
        version: 10, name: "add_account_ids",
        statements: [
            """
            CREATE TABLE accounts_v10 (
                id TEXT PRIMARY KEY,
                app TEXT NOT NULL DEFAULT '',
                user_id TEXT UNIQUE REFERENCES users(id) ON DELETE CASCADE,
                email TEXT NOT NULL,
                email_key TEXT NOT NULL,
                password_hash TEXT NOT NULL,
                confirmed_at INTEGER,
                created_at INTEGER NOT NULL,
                UNIQUE (app, email_key))
            """,
            """
            INSERT INTO accounts_v10 (id, app, user_id, email, email_key, password_hash, confirmed_at, created_at)
            SELECT user_id, app, user_id, email, email_key, password_hash, confirmed_at, created_at FROM accounts
            """,
            "DROP TABLE accounts",
            "ALTER TABLE accounts_v10 RENAME TO accounts",
            """
            CREATE TABLE account_tokens_v10 (
                hash TEXT PRIMARY KEY,
                token_id TEXT NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                purpose TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                used_at INTEGER)
            """,
            """
            INSERT INTO account_tokens_v10 (hash, token_id, account_id, purpose, created_at, expires_at, used_at)
            SELECT hash, token_id, user_id, purpose, created_at, expires_at, used_at FROM account_tokens
            """,
            "DROP TABLE account_tokens",
            "ALTER TABLE account_tokens_v10 RENAME TO account_tokens",
            "CREATE INDEX account_tokens_account ON account_tokens(account_id)",
        ])
}

extension SQLiteMigrations {
    /// Step 11: API key ids are BSON ObjectIds (24 lower-case hex digits), as the Realm SDKs parse
    /// them. An existing key gets one: its creation time's four bytes, then eight random bytes (the
    /// spec's five random bytes and three-byte counter); its hash, and so the key, are unchanged.
    /// Sessions remember the API key that opened them (`api_key_id`), to end with it.
    static let apiKeyObjectIDs = SchemaMigration(
        version: 11, name: "add_api_key_object_ids",
        statements: [
            """
            UPDATE api_keys SET id = printf('%08x', created_at & 4294967295) || lower(hex(randomblob(8)))
            WHERE length(id) <> 24 OR id GLOB '*[^0-9a-f]*'
            """,
            "ALTER TABLE sessions ADD COLUMN api_key_id TEXT",
            "CREATE INDEX sessions_api_key ON sessions(api_key_id)",
        ])
}

extension SQLiteMigrations {
    /// Step 12: one table of one-time tokens (confirm and reset links now; authorization codes,
    /// sign-in flows and challenges next): purpose, hash, app, subject, payload, expiry, use.
    /// Every row of `account_tokens` moves over (its account's app; its account as the subject;
    /// its token id in the payload), so a link mailed before the upgrade still works; the old
    /// table is dropped.
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
                created_at INTEGER NOT NULL,
                expires_at INTEGER NOT NULL,
                used_at INTEGER,
                PRIMARY KEY (purpose, hash))
            """,
            "CREATE INDEX one_time_tokens_subject ON one_time_tokens(app, subject, purpose)",
            "CREATE INDEX one_time_tokens_expiry ON one_time_tokens(expires_at)",
            "CREATE INDEX one_time_tokens_used ON one_time_tokens(used_at)",
            """
            INSERT INTO one_time_tokens (purpose, hash, app, subject, payload, created_at, expires_at, used_at)
            SELECT t.purpose, t.hash, a.app, t.account_id, json_object('tokenId', t.token_id), t.created_at, t.expires_at, t.used_at
            FROM account_tokens t JOIN accounts a ON a.id = t.account_id
            """,
            "DROP TABLE account_tokens",
        ])
}

extension SQLiteMigrations {
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
                totp_confirmed_at INTEGER,
                totp_last_step INTEGER,
                recovery_codes TEXT NOT NULL DEFAULT '',
                failed_attempts INTEGER NOT NULL DEFAULT 0,
                locked_until INTEGER,
                updated_at INTEGER NOT NULL)
            """,
            "CREATE INDEX mfa_factors_app ON mfa_factors(app)",
        ])
}

extension SQLiteMigrations {
    /// Step 13: what an OpenID Connect sign-in adds to its session: the OP session it was issued
    /// through (`op_session`, its `sid`), when and how the user signed in (`auth_time`, `amr` as
    /// space-separated RFC 8176 values) and the granted scopes (`scope`, space-separated). All
    /// nullable: existing sessions (and App Services ones) have none.
    static let sessionSignIn = SchemaMigration(
        version: 13, name: "add_session_sign_in",
        statements: [
            "ALTER TABLE sessions ADD COLUMN op_session TEXT",
            "ALTER TABLE sessions ADD COLUMN auth_time INTEGER",
            "ALTER TABLE sessions ADD COLUMN amr TEXT",
            "ALTER TABLE sessions ADD COLUMN scope TEXT",
            "CREATE INDEX sessions_op_session ON sessions(op_session)",
        ])
}
