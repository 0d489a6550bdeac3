import Sessions

extension SQLiteMigrations {
    /// Step 14: what a user allowed an OpenID Connect client on the consent page, one row per
    /// user and client (the scopes space-separated), deleted with the user.
    static let consents = SchemaMigration(
        version: 14, name: "add_consents",
        statements: [
            """
            CREATE TABLE consents (
                user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                client_id TEXT NOT NULL,
                scopes TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (user_id, client_id))
            """
        ])
}
