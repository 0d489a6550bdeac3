import JOSE

extension SessionManager {
    /// The most API keys one user may have.
    public static let maxAPIKeysPerUser = 20

    /// Creates an API key for a user. The key is returned once; the store keeps its hash.
    /// - Throws: `invalid_input` for a name that is empty, over 128 bytes or holds control characters,
    ///   or a user at the limit; `api_key_exists`; `user_not_found`; `user_disabled`; `store_unavailable`.
    public func createAPIKey(userID: String, name: String) async throws -> (record: APIKeyRecord, key: String) {
        guard Self.isStorableID(name, maxBytes: 128) else {
            throw TokenError(.invalidInput, "an API key name is 1…128 bytes without control characters")
        }
        let key = try RefreshToken.generate()
        let record = APIKeyRecord(
            id: try ObjectID.make(at: configuration.now).hex, userID: userID, name: name, hash: RefreshToken.hash(key), disabled: false,
            createdAt: configuration.now)
        try await keyOwnerTransaction(userID) { tx in
            guard try await tx.apiKeys(userID: userID).count < Self.maxAPIKeysPerUser else {
                throw TokenError(.invalidInput, "a user may have at most \(Self.maxAPIKeysPerUser) API keys")
            }
            guard try await tx.insertAPIKey(record) else { throw TokenError(.apiKeyExists, "the user already has an API key of that name") }
        }
        return (record, key)
    }

    /// A user's API keys, oldest first. - Throws: `user_not_found`, `user_disabled`.
    public func apiKeys(of userID: String) async throws -> [APIKeyRecord] {
        try await keyOwnerTransaction(userID) { tx in try await tx.apiKeys(userID: userID) }
    }

    /// One of a user's API keys. - Throws: `api_key_not_found`, `user_not_found`, `user_disabled`.
    public func apiKey(id: String, of userID: String) async throws -> APIKeyRecord {
        guard let key = try await apiKeys(of: userID).first(where: { $0.id == id }) else {
            throw TokenError(.apiKeyNotFound, "the user has no API key with that id")
        }
        return key
    }

    /// Enables or disables one of a user's keys; disabling ends the sessions the key opened.
    /// - Throws: `api_key_not_found`, `user_not_found`, `user_disabled`.
    public func setAPIKeyDisabled(id: String, of userID: String, _ disabled: Bool) async throws {
        let now = configuration.now
        let found = try await keyOwnerTransaction(userID) { tx in
            guard try await tx.setAPIKeyDisabled(id: id, userID: userID, disabled: disabled) else { return false }
            if disabled { _ = try await tx.revokeSessions(apiKeyID: id, at: now, reason: "api_key") }
            return true
        }
        guard found else { throw TokenError(.apiKeyNotFound, "the user has no API key with that id") }
    }

    /// Deletes one of a user's keys and ends the sessions it opened.
    /// - Throws: `api_key_not_found`, `user_not_found`, `user_disabled`.
    public func deleteAPIKey(id: String, of userID: String) async throws {
        let now = configuration.now
        let found = try await keyOwnerTransaction(userID) { tx in
            guard try await tx.deleteAPIKey(id: id, userID: userID) else { return false }
            _ = try await tx.revokeSessions(apiKeyID: id, at: now, reason: "api_key")
            return true
        }
        guard found else { throw TokenError(.apiKeyNotFound, "the user has no API key with that id") }
    }

    /// The owner of an enabled API key (a key login signs in as its owner).
    /// - Throws: as ``apiKey(forKey:)``.
    public func userID(forAPIKey key: String) async throws -> String {
        try await apiKey(forKey: key).userID
    }

    /// The enabled API key `key`, of a user of this manager's app (another app's key is unknown here).
    /// - Throws: `invalid_api_key` for an unknown, disabled or deleted key, or another app's;
    ///   `store_unavailable`.
    public func apiKey(forKey key: String) async throws -> APIKeyRecord {
        guard RefreshToken.looksLikeRefreshToken(key) else { throw TokenError(.invalidAPIKey, "not an API key") }
        let hash = RefreshToken.hash(key)
        let app = configuration.app
        let record = try await store.read { tx -> APIKeyRecord? in
            guard let record = try await tx.apiKey(hash: hash), !record.disabled, try await tx.user(id: record.userID)?.app == app else { return nil }
            return record
        }
        guard let record else { throw TokenError(.invalidAPIKey, "the API key is unknown or disabled") }
        return record
    }

    /// Runs `body` in a transaction once the keys' owner is known to be a user of this app who
    /// is not disabled: a disabled user manages no keys.
    private func keyOwnerTransaction<T: Sendable>(
        _ userID: String, _ body: @escaping @Sendable (any SessionStoreTransaction) async throws -> T
    ) async throws -> T {
        let app = configuration.app
        return try await store.transaction { tx in
            guard let user = try await tx.user(id: userID), user.app == app else { throw TokenError(.userNotFound, "no user has that id") }
            guard user.disabledAt == nil else { throw TokenError(.userDisabled, "the user is disabled") }
            return try await body(tx)
        }
    }
}
