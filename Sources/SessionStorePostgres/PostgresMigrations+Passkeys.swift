import Sessions

extension PostgresMigrations {
    /// Step 16: passkeys (WebAuthn credentials), one row per credential: its id (base64url,
    /// unique across apps), its owner and app, the name the user gave it, the public key as a JWK
    /// with its algorithm, the signature counter, and when it was made and last used.
    static let passkeys = SchemaMigration(
        version: 16, name: "add_passkeys",
        statements: [
            """
            CREATE TABLE passkeys (
                id TEXT PRIMARY KEY,
                app TEXT NOT NULL,
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                public_key TEXT NOT NULL,
                algorithm TEXT NOT NULL,
                sign_count BIGINT NOT NULL DEFAULT 0,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT)
            """,
            "CREATE INDEX passkeys_user ON passkeys(user_id)",
        ])
}
