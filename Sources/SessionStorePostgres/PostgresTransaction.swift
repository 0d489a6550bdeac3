import JOSE
import PostgresNIO
import Sessions

/// The store operations inside one PostgreSQL transaction, on one leased connection.
struct PostgresTransaction: SessionStoreTransaction {
    let connection: PostgresConnection
    let location: PostgresSessionStore.Location
    let logger: Logger

    func q(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await PostgresSessionStore.run(connection, query, location: location, logger: logger)
    }

    // MARK: users and identities

    func insertUser(_ user: UserRecord) async throws {
        _ = try await q("INSERT INTO users (id, created_at, app) VALUES (\(user.id), \(user.createdAt), \(user.app))")
    }

    func user(id: String) async throws -> UserRecord? {
        try await q("SELECT id, created_at, disabled_at, app FROM users WHERE id = \(id)").first.map {
            let (id, created, disabled, app) = try $0.decode((String, Int64, Int64?, String).self)
            return UserRecord(id: id, createdAt: created, disabledAt: disabled, app: app)
        }
    }

    func deleteUser(id: String) async throws -> Bool {
        // Lock the user's sessions first, in the order rotations lock them (session, then token).
        _ = try await q("SELECT id FROM sessions WHERE user_id = \(id) ORDER BY id FOR UPDATE")
        _ = try await q("DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM sessions WHERE user_id = \(id))")
        _ = try await q("DELETE FROM sessions WHERE user_id = \(id)")
        _ = try await q("DELETE FROM identities WHERE user_id = \(id)")
        _ = try await q("DELETE FROM api_keys WHERE user_id = \(id)")
        _ = try await q("DELETE FROM consents WHERE user_id = \(id)")
        _ = try await q("DELETE FROM mfa_factors WHERE user_id = \(id)")
        _ = try await q("DELETE FROM passkeys WHERE user_id = \(id)")
        // The user's authorization codes and OP sessions (their subject is the user id).
        _ = try await q("DELETE FROM one_time_tokens WHERE subject = \(id) AND app = (SELECT app FROM users WHERE id = \(id))")
        return try await !q("DELETE FROM users WHERE id = \(id) RETURNING id").isEmpty
    }

    func insertIdentity(_ i: IdentityRecord) async throws -> Bool {
        try await !q(
            """
            INSERT INTO identities (app, provider, issuer, subject, user_id, email, email_verified, profile, created_at)
            VALUES (\(i.app), \(i.provider), \(i.issuer), \(i.subject), \(i.userID), \(i.email), \(i.emailVerified), \(i.profileJSON),
                    \(i.createdAt))
            ON CONFLICT (app, provider, issuer, subject) DO NOTHING RETURNING provider
            """
        ).isEmpty
    }

    private static func identity(_ r: PostgresRow) throws -> IdentityRecord {
        let (app, provider, issuer, subject, userID, email, verified, profile, created, sealed) =
            try r.decode((String, String, String, String, String, String?, Bool, String?, Int64, String?).self)
        return IdentityRecord(
            provider: provider, issuer: issuer, subject: subject, userID: userID, email: email, emailVerified: verified,
            profileJSON: profile, createdAt: created, sealedProviderToken: sealed, app: app)
    }

    func identity(app: String, provider: String, issuer: String, subject: String) async throws -> IdentityRecord? {
        try await q(
            """
            SELECT app, provider, issuer, subject, user_id, email, email_verified, profile, created_at, sealed_provider_token FROM identities
            WHERE app = \(app) AND provider = \(provider) AND issuer = \(issuer) AND subject = \(subject)
            """
        ).first.map(Self.identity)
    }

    func identities(userID: String) async throws -> [IdentityRecord] {
        try await q(
            """
            SELECT app, provider, issuer, subject, user_id, email, email_verified, profile, created_at, sealed_provider_token FROM identities
            WHERE user_id = \(userID) ORDER BY created_at, provider, issuer, subject
            """
        ).map(Self.identity)
    }

    // MARK: sessions and refresh tokens

    func insertSession(_ f: SessionRecord) async throws {
        let signIn = f.signIn?.columns
        _ = try await q(
            """
            INSERT INTO sessions (id, user_id, client_id, created_at, expires_at, idle_expires_at, last_used_at, revoked_at, revoke_reason, device,
                                  api_key_id, op_session, auth_time, amr, scope)
            VALUES (\(f.id), \(f.userID), \(f.clientID), \(f.createdAt), \(f.expiresAt), \(f.idleExpiresAt), \(f.lastUsedAt),
                    \(f.revokedAt), \(f.revokeReason), \(f.device), \(f.apiKeyID), \(signIn?.opSession), \(signIn?.authTime), \(signIn?.amr),
                    \(signIn?.scope))
            """)
    }

    private static let sessionColumns =
        "id, user_id, client_id, created_at, expires_at, idle_expires_at, last_used_at, revoked_at, revoke_reason, device, api_key_id, op_session, auth_time, amr, scope"

    private static func sessionRecord(_ r: PostgresRow) throws -> SessionRecord {
        let (id, userID, clientID, created, expires, idle, lastUsed, revokedAt, reason, device, apiKey, opSession, authTime, amr, scope) =
            try r.decode(
                (String, String, String, Int64, Int64, Int64, Int64, Int64?, String?, String?, String?, String?, Int64?, String?, String?).self)
        return SessionRecord(
            id: id, userID: userID, clientID: clientID, createdAt: created, expiresAt: expires, idleExpiresAt: idle,
            lastUsedAt: lastUsed, revokedAt: revokedAt, revokeReason: reason, device: device, apiKeyID: apiKey,
            signIn: SessionSignIn(opSession: opSession, authTime: authTime, amr: amr, scope: scope))
    }

    func session(id: String, forUpdate: Bool) async throws -> SessionRecord? {
        let lock = forUpdate ? " FOR UPDATE" : ""
        return try await q("SELECT \(unescaped: Self.sessionColumns) FROM sessions WHERE id = \(id)\(unescaped: lock)").first.map(Self.sessionRecord)
    }

    func sessions(userID: String) async throws -> [SessionRecord] {
        try await q("SELECT \(unescaped: Self.sessionColumns) FROM sessions WHERE user_id = \(userID) ORDER BY created_at, id").map(
            Self.sessionRecord)
    }

    func revokeSession(id: String, at time: Int64, reason: String) async throws -> Bool {
        try await !q("UPDATE sessions SET revoked_at = \(time), revoke_reason = \(reason) WHERE id = \(id) AND revoked_at IS NULL RETURNING id")
            .isEmpty
    }

    func touchSession(id: String, lastUsedAt: Int64, idleExpiresAt: Int64) async throws {
        _ = try await q("UPDATE sessions SET last_used_at = \(lastUsedAt), idle_expires_at = \(idleExpiresAt) WHERE id = \(id)")
    }

    func insertRefreshToken(_ t: RefreshTokenRecord) async throws {
        _ = try await q(
            """
            INSERT INTO refresh_tokens (hash, session_id, parent_hash, created_at, used_at, successor_hash, sealed_successor)
            VALUES (\(t.hash), \(t.sessionID), \(t.parentHash), \(t.createdAt), \(t.usedAt), \(t.successorHash), \(t.sealedSuccessor))
            """)
    }

    func refreshToken(hash: String) async throws -> RefreshTokenRecord? {
        try await q(
            """
            SELECT hash, session_id, parent_hash, created_at, used_at, successor_hash, sealed_successor FROM refresh_tokens WHERE hash = \(hash)
            """
        ).first.map {
            let (hash, session, parent, created, used, successor, sealed) = try $0.decode(
                (String, String, String?, Int64, Int64?, String?, String?).self)
            return RefreshTokenRecord(
                hash: hash, sessionID: session, parentHash: parent, createdAt: created, usedAt: used,
                successorHash: successor, sealedSuccessor: sealed)
        }
    }

    func spendRefreshToken(hash: String, at time: Int64, successorHash: String, sealedSuccessor: String) async throws -> Bool {
        // Under READ COMMITTED a concurrent spender blocks on the row, then re-checks
        // `used_at IS NULL` against the committed row and updates nothing.
        try await !q(
            """
            UPDATE refresh_tokens SET used_at = \(time), successor_hash = \(successorHash), sealed_successor = \(sealedSuccessor)
            WHERE hash = \(hash) AND used_at IS NULL RETURNING hash
            """
        ).isEmpty
    }

    func purge(now: Int64) async throws -> PurgeCounts {
        let tokens = try await q(
            """
            DELETE FROM refresh_tokens WHERE session_id IN
              (SELECT id FROM sessions WHERE revoked_at IS NOT NULL OR expires_at <= \(now) OR idle_expires_at <= \(now)) RETURNING hash
            """
        ).count
        let sessions = try await q(
            """
            DELETE FROM sessions WHERE revoked_at IS NOT NULL OR expires_at <= \(now) OR idle_expires_at <= \(now) RETURNING id
            """
        ).count
        let keys = try await q("DELETE FROM signing_keys WHERE retired_at IS NOT NULL AND publish_until <= \(now) RETURNING kid").count
        return PurgeCounts(sessions: sessions, refreshTokens: tokens, signingKeys: keys)
    }

    func clearSpentSuccessors(usedBefore time: Int64) async throws -> Int {
        try await q(
            """
            UPDATE refresh_tokens SET sealed_successor = NULL, successor_hash = NULL
            WHERE used_at IS NOT NULL AND used_at <= \(time) AND sealed_successor IS NOT NULL RETURNING hash
            """
        ).count
    }

    // MARK: signing keys

    func insertSigningKey(_ k: SigningKeyRecord) async throws -> Bool {
        let active: Bool? = k.retiredAt == nil && !k.companion ? true : nil
        return try await !q(
            """
            INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk, sealed, created_at, retired_at, publish_until, active,
                                      access_token_lifetime, revoked_at)
            VALUES (\(k.keyID), \(k.algorithm), \(k.publicJWK), \(k.privateJWK), \(k.sealed), \(k.createdAt), \(k.retiredAt),
                    \(k.publishUntil), \(active), \(k.accessTokenLifetime), \(k.revokedAt))
            ON CONFLICT DO NOTHING RETURNING kid
            """
        ).isEmpty
    }

    func recordSigningKeyUse(keyID: String, accessTokenLifetime lifetime: Int64) async throws {
        _ = try await q(
            """
            UPDATE signing_keys SET access_token_lifetime = \(lifetime)
            WHERE kid = \(keyID) AND (access_token_lifetime IS NULL OR access_token_lifetime < \(lifetime))
            """)
    }

    func revokeSigningKey(keyID: String, at time: Int64) async throws -> Bool {
        try await !q(
            """
            UPDATE signing_keys SET revoked_at = COALESCE(revoked_at, \(time)), retired_at = COALESCE(retired_at, \(time)),
              publish_until = LEAST(COALESCE(publish_until, \(time)), \(time)), active = NULL
            WHERE kid = \(keyID) RETURNING kid
            """
        ).isEmpty
    }

    func retireActiveSigningKey(at time: Int64, publishUntil: Int64) async throws -> String? {
        // The companions (neither active nor retired) retire with the active key.
        _ = try await q(
            "UPDATE signing_keys SET retired_at = \(time), publish_until = \(publishUntil) WHERE active IS NULL AND retired_at IS NULL RETURNING kid")
        return try await q(
            """
            UPDATE signing_keys SET retired_at = \(time), publish_until = \(publishUntil), active = NULL WHERE active RETURNING kid
            """
        ).first.map { try $0.decode(String.self) }
    }

    private static func key(_ r: PostgresRow) throws -> SigningKeyRecord {
        let (kid, alg, pub, priv, sealed, created, retired, until, lifetime, revoked, companion) =
            try r.decode((String, String, String, String, Bool, Int64, Int64?, Int64?, Int64?, Int64?, Bool).self)
        return SigningKeyRecord(
            keyID: kid, algorithm: alg, publicJWK: pub, privateJWK: priv, sealed: sealed, createdAt: created,
            retiredAt: retired, publishUntil: until, accessTokenLifetime: lifetime, revokedAt: revoked, companion: companion)
    }

    func activeSigningKey() async throws -> SigningKeyRecord? {
        try await q(
            "SELECT kid, alg, public_jwk, private_jwk, sealed, created_at, retired_at, publish_until, access_token_lifetime, revoked_at, (active IS NULL AND retired_at IS NULL) FROM signing_keys WHERE active"
        )
        .first.map(Self.key)
    }

    func signingKeys() async throws -> [SigningKeyRecord] {
        try await q(
            """
            SELECT kid, alg, public_jwk, private_jwk, sealed, created_at, retired_at, publish_until, access_token_lifetime, revoked_at,
                   (active IS NULL AND retired_at IS NULL)
            FROM signing_keys ORDER BY created_at, COALESCE(retired_at, 9223372036854775807), kid
            """
        ).map(Self.key)
    }
}
