import JOSE
import SQLiteNIO
import Sessions

/// The store operations inside one SQLite transaction (the store's gate is held).
struct SQLiteTransaction: SessionStoreTransaction {
    let store: SQLiteSessionStore

    func q(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await store.rows(sql, binds)
    }

    // MARK: users and identities

    func insertUser(_ user: UserRecord) async throws {
        _ = try await q("INSERT INTO users (id, created_at, app) VALUES (?, ?, ?)", [.text(user.id), .int(user.createdAt), .text(user.app)])
    }

    func user(id: String) async throws -> UserRecord? {
        try await q("SELECT id, created_at, disabled_at, app FROM users WHERE id = ?", [.text(id)]).first.map {
            UserRecord(id: $0.string("id"), createdAt: $0.int("created_at"), disabledAt: $0.optInt("disabled_at"), app: $0.string("app"))
        }
    }

    func deleteUser(id: String) async throws -> Bool {
        _ = try await q("DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM sessions WHERE user_id = ?)", [.text(id)])
        _ = try await q("DELETE FROM sessions WHERE user_id = ?", [.text(id)])
        _ = try await q("DELETE FROM identities WHERE user_id = ?", [.text(id)])
        _ = try await q("DELETE FROM api_keys WHERE user_id = ?", [.text(id)])
        _ = try await q("DELETE FROM consents WHERE user_id = ?", [.text(id)])
        _ = try await q("DELETE FROM mfa_factors WHERE user_id = ?", [.text(id)])
        _ = try await q("DELETE FROM passkeys WHERE user_id = ?", [.text(id)])
        // The user's authorization codes and OP sessions (their subject is the user id).
        _ = try await q("DELETE FROM one_time_tokens WHERE subject = ? AND app = (SELECT app FROM users WHERE id = ?)", [.text(id), .text(id)])
        return try await !q("DELETE FROM users WHERE id = ? RETURNING id", [.text(id)]).isEmpty
    }

    func insertIdentity(_ i: IdentityRecord) async throws -> Bool {
        try await !q(
            """
            INSERT INTO identities (app, provider, issuer, subject, user_id, email, email_verified, profile, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (app, provider, issuer, subject) DO NOTHING RETURNING provider
            """,
            [
                .text(i.app), .text(i.provider), .text(i.issuer), .text(i.subject), .text(i.userID), .opt(i.email), .int(i.emailVerified ? 1 : 0),
                .opt(i.profileJSON), .int(i.createdAt),
            ]
        ).isEmpty
    }

    private static let identityColumns = "app, provider, issuer, subject, user_id, email, email_verified, profile, created_at, sealed_provider_token"

    private static func identity(_ r: SQLiteRow) -> IdentityRecord {
        IdentityRecord(
            provider: r.string("provider"), issuer: r.string("issuer"), subject: r.string("subject"), userID: r.string("user_id"),
            email: r.optString("email"), emailVerified: r.int("email_verified") != 0,
            profileJSON: r.optString("profile"), createdAt: r.int("created_at"),
            sealedProviderToken: r.optString("sealed_provider_token"), app: r.string("app"))
    }

    func identity(app: String, provider: String, issuer: String, subject: String) async throws -> IdentityRecord? {
        try await q(
            "SELECT \(Self.identityColumns) FROM identities WHERE app = ? AND provider = ? AND issuer = ? AND subject = ?",
            [.text(app), .text(provider), .text(issuer), .text(subject)]
        ).first.map(Self.identity)
    }

    func identities(userID: String) async throws -> [IdentityRecord] {
        try await q(
            "SELECT \(Self.identityColumns) FROM identities WHERE user_id = ? ORDER BY created_at, provider, issuer, subject",
            [.text(userID)]
        ).map(Self.identity)
    }

    // MARK: sessions and refresh tokens

    func insertSession(_ f: SessionRecord) async throws {
        let signIn = f.signIn?.columns
        _ = try await q(
            """
            INSERT INTO sessions (id, user_id, client_id, created_at, expires_at, idle_expires_at, last_used_at, revoked_at, revoke_reason, device,
                                  api_key_id, op_session, auth_time, amr, scope)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(f.id), .text(f.userID), .text(f.clientID), .int(f.createdAt), .int(f.expiresAt), .int(f.idleExpiresAt),
                .int(f.lastUsedAt), .opt(f.revokedAt), .opt(f.revokeReason), .opt(f.device), .opt(f.apiKeyID), .opt(signIn?.opSession),
                .opt(signIn?.authTime), .opt(signIn?.amr), .opt(signIn?.scope),
            ])
    }

    private static let sessionColumns =
        "id, user_id, client_id, created_at, expires_at, idle_expires_at, last_used_at, revoked_at, revoke_reason, device, api_key_id, op_session, auth_time, amr, scope"

    private static func sessionRecord(_ r: SQLiteRow) -> SessionRecord {
        let expires = r.int("expires_at")
        return SessionRecord(
            id: r.string("id"), userID: r.string("user_id"), clientID: r.string("client_id"),
            createdAt: r.int("created_at"), expiresAt: expires, idleExpiresAt: r.optInt("idle_expires_at") ?? expires,
            lastUsedAt: r.int("last_used_at"), revokedAt: r.optInt("revoked_at"), revokeReason: r.optString("revoke_reason"),
            device: r.optString("device"), apiKeyID: r.optString("api_key_id"),
            signIn: SessionSignIn(
                opSession: r.optString("op_session"), authTime: r.optInt("auth_time"), amr: r.optString("amr"), scope: r.optString("scope")))
    }

    func session(id: String, forUpdate: Bool) async throws -> SessionRecord? {
        // BEGIN IMMEDIATE already holds the database's write lock: no row lock needed.
        try await q("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?", [.text(id)]).first.map(Self.sessionRecord)
    }

    func sessions(userID: String) async throws -> [SessionRecord] {
        try await q("SELECT \(Self.sessionColumns) FROM sessions WHERE user_id = ? ORDER BY created_at, id", [.text(userID)]).map(Self.sessionRecord)
    }

    func revokeSession(id: String, at time: Int64, reason: String) async throws -> Bool {
        try await !q(
            "UPDATE sessions SET revoked_at = ?, revoke_reason = ? WHERE id = ? AND revoked_at IS NULL RETURNING id",
            [.int(time), .text(reason), .text(id)]
        ).isEmpty
    }

    func touchSession(id: String, lastUsedAt: Int64, idleExpiresAt: Int64) async throws {
        _ = try await q("UPDATE sessions SET last_used_at = ?, idle_expires_at = ? WHERE id = ?", [.int(lastUsedAt), .int(idleExpiresAt), .text(id)])
    }

    func insertRefreshToken(_ t: RefreshTokenRecord) async throws {
        _ = try await q(
            """
            INSERT INTO refresh_tokens (hash, session_id, parent_hash, created_at, used_at, successor_hash, sealed_successor)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(t.hash), .text(t.sessionID), .opt(t.parentHash), .int(t.createdAt), .opt(t.usedAt), .opt(t.successorHash),
                .opt(t.sealedSuccessor),
            ])
    }

    func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await q(
            """
            SELECT hash, session_id, parent_hash, created_at, used_at, successor_hash, sealed_successor FROM refresh_tokens WHERE hash = ?
            """, [.text(hash)]
        ).first.map { r in
            RefreshTokenRecord(
                hash: r.string("hash"), sessionID: r.string("session_id"), parentHash: r.optString("parent_hash"),
                createdAt: r.int("created_at"), usedAt: r.optInt("used_at"), successorHash: r.optString("successor_hash"),
                sealedSuccessor: r.optString("sealed_successor"))
        }
    }

    func spendRefreshToken(hash: String, at time: Int64, successorHash: String, sealedSuccessor: String) async throws -> Bool {
        try await !q(
            """
            UPDATE refresh_tokens SET used_at = ?, successor_hash = ?, sealed_successor = ?
            WHERE hash = ? AND used_at IS NULL RETURNING hash
            """, [.int(time), .text(successorHash), .text(sealedSuccessor), .text(hash)]
        ).isEmpty
    }

    func purge(now: Int64) async throws -> PurgeCounts {
        let dead = "revoked_at IS NOT NULL OR expires_at <= ? OR COALESCE(idle_expires_at, expires_at) <= ?"
        let tokens = try await q(
            "DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM sessions WHERE \(dead)) RETURNING hash",
            [.int(now), .int(now)]
        ).count
        let sessions = try await q("DELETE FROM sessions WHERE \(dead) RETURNING id", [.int(now), .int(now)]).count
        let keys = try await q("DELETE FROM signing_keys WHERE retired_at IS NOT NULL AND publish_until <= ? RETURNING kid", [.int(now)]).count
        return PurgeCounts(sessions: sessions, refreshTokens: tokens, signingKeys: keys)
    }

    func clearSpentSuccessors(usedBefore time: Int64) async throws -> Int {
        try await q(
            """
            UPDATE refresh_tokens SET sealed_successor = NULL, successor_hash = NULL
            WHERE used_at IS NOT NULL AND used_at <= ? AND sealed_successor IS NOT NULL RETURNING hash
            """, [.int(time)]
        ).count
    }

    // MARK: signing keys

    func insertSigningKey(_ k: SigningKeyRecord) async throws -> Bool {
        try await !q(
            """
            INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk, sealed, created_at, retired_at, publish_until, active,
                                      access_token_lifetime, revoked_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING kid
            """,
            [
                .text(k.keyID), .text(k.algorithm), .text(k.publicJWK), .text(k.privateJWK), .int(k.sealed ? 1 : 0), .int(k.createdAt),
                .opt(k.retiredAt), .opt(k.publishUntil), k.retiredAt == nil && !k.companion ? .int(1) : .null,
                .opt(k.accessTokenLifetime), .opt(k.revokedAt),
            ]
        ).isEmpty
    }

    func recordSigningKeyUse(keyID: String, accessTokenLifetime lifetime: Int64) async throws {
        _ = try await q(
            """
            UPDATE signing_keys SET access_token_lifetime = ?
            WHERE kid = ? AND (access_token_lifetime IS NULL OR access_token_lifetime < ?)
            """, [.int(lifetime), .text(keyID), .int(lifetime)])
    }

    func revokeSigningKey(keyID: String, at time: Int64) async throws -> Bool {
        try await !q(
            """
            UPDATE signing_keys SET revoked_at = COALESCE(revoked_at, ?), retired_at = COALESCE(retired_at, ?),
              publish_until = MIN(COALESCE(publish_until, ?), ?), active = NULL
            WHERE kid = ? RETURNING kid
            """, [.int(time), .int(time), .int(time), .int(time), .text(keyID)]
        ).isEmpty
    }

    func retireActiveSigningKey(at time: Int64, publishUntil: Int64) async throws -> String? {
        // The companions (neither active nor retired) retire with the active key.
        _ = try await q(
            "UPDATE signing_keys SET retired_at = ?, publish_until = ? WHERE active IS NULL AND retired_at IS NULL RETURNING kid",
            [.int(time), .int(publishUntil)])
        return try await q(
            "UPDATE signing_keys SET retired_at = ?, publish_until = ?, active = NULL WHERE active = 1 RETURNING kid",
            [.int(time), .int(publishUntil)]
        ).first?.string("kid")
    }

    private static let keyColumns =
        "kid, alg, public_jwk, private_jwk, sealed, created_at, retired_at, publish_until, access_token_lifetime, revoked_at, "
        + "(active IS NULL AND retired_at IS NULL) AS companion"

    private static func key(_ r: SQLiteRow) -> SigningKeyRecord {
        SigningKeyRecord(
            keyID: r.string("kid"), algorithm: r.string("alg"), publicJWK: r.string("public_jwk"),
            privateJWK: r.string("private_jwk"), sealed: r.int("sealed") != 0, createdAt: r.int("created_at"),
            retiredAt: r.optInt("retired_at"), publishUntil: r.optInt("publish_until"),
            accessTokenLifetime: r.optInt("access_token_lifetime"), revokedAt: r.optInt("revoked_at"), companion: r.int("companion") != 0)
    }

    func activeSigningKey() async throws -> SigningKeyRecord? {
        try await q("SELECT \(Self.keyColumns) FROM signing_keys WHERE active = 1").first.map(Self.key)
    }

    func signingKeys() async throws -> [SigningKeyRecord] {
        try await q("SELECT \(Self.keyColumns) FROM signing_keys ORDER BY created_at, COALESCE(retired_at, 9223372036854775807), kid").map(Self.key)
    }
}

extension SQLiteData {
    static func int(_ v: Int64) -> SQLiteData { .integer(SQLiteInt64(v)) }
    static func opt(_ v: String?) -> SQLiteData { v.map { .text($0) } ?? .null }
    static func opt(_ v: Int64?) -> SQLiteData { v.map { .int($0) } ?? .null }
}

extension SQLiteRow {
    func string(_ name: String) -> String { column(name)?.string ?? "" }
    func optString(_ name: String) -> String? {
        guard let d = column(name), !d.isNull else { return nil }
        return d.string
    }
    func int(_ name: String) -> Int64 { Int64(column(name)?.integer ?? 0) }
    func optInt(_ name: String) -> Int64? {
        guard let d = column(name), !d.isNull else { return nil }
        return d.integer.map { Int64($0) }
    }
}
