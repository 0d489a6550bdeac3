import JOSE

extension SessionManager {
    /// The most API keys one user may have.
    public static let maxAPIKeysPerUser = 20

    /// Creates an API key for a user. The key is returned once; the store keeps its hash.
    /// - Throws: `invalid_input` for a name that is empty, over 128 bytes or holds control characters,
    ///   or a user at the limit; `api_key_exists`; `user_not_found`; `store_unavailable`.
    public func createAPIKey(userID: String, name: String) async throws -> (record: APIKeyRecord, key: String) {
        guard Self.isStorableID(name, maxBytes: 128) else { throw TokenError(.invalidInput, "an API key name is 1…128 bytes without control characters") }
        let key = try RefreshToken.generate()
        let record = APIKeyRecord(
            id: try ObjectID.make(at: configuration.now).hex, userID: userID, name: name, hash: RefreshToken.hash(key), disabled: false,
            createdAt: configuration.now)
        try await store.transaction { tx in
            guard try await tx.user(id: userID)?.app == configuration.app else { throw TokenError(.userNotFound, "no user has that id") }
            guard try await tx.apiKeys(userID: userID).count < Self.maxAPIKeysPerUser else {
                throw TokenError(.invalidInput, "a user may have at most \(Self.maxAPIKeysPerUser) API keys")
            }
            guard try await tx.insertAPIKey(record) else { throw TokenError(.apiKeyExists, "the user already has an API key of that name") }
        }
        return (record, key)
    }

    /// A user's API keys, oldest first.
    public func apiKeys(of userID: String) async throws -> [APIKeyRecord] {
        try await store.transaction { tx in try await tx.apiKeys(userID: userID) }
    }

    /// One of a user's API keys. - Throws: `api_key_not_found`.
    public func apiKey(id: String, of userID: String) async throws -> APIKeyRecord {
        guard let key = try await apiKeys(of: userID).first(where: { $0.id == id }) else { throw TokenError(.apiKeyNotFound, "the user has no API key with that id") }
        return key
    }

    /// Enables or disables one of a user's keys. - Throws: `api_key_not_found`.
    public func setAPIKeyDisabled(id: String, of userID: String, _ disabled: Bool) async throws {
        let found = try await store.transaction { tx in try await tx.setAPIKeyDisabled(id: id, userID: userID, disabled: disabled) }
        guard found else { throw TokenError(.apiKeyNotFound, "the user has no API key with that id") }
    }

    /// Deletes one of a user's keys. - Throws: `api_key_not_found`.
    public func deleteAPIKey(id: String, of userID: String) async throws {
        let found = try await store.transaction { tx in try await tx.deleteAPIKey(id: id, userID: userID) }
        guard found else { throw TokenError(.apiKeyNotFound, "the user has no API key with that id") }
    }

    /// The owner of an enabled API key (a key login signs in as its owner). A key belongs to its
    /// user's app: another app's key is unknown here.
    /// - Throws: `invalid_api_key` for an unknown, disabled or deleted key, or another app's;
    ///   `store_unavailable`.
    public func userID(forAPIKey key: String) async throws -> String {
        guard RefreshToken.looksLikeRefreshToken(key) else { throw TokenError(.invalidAPIKey, "not an API key") }
        let hash = RefreshToken.hash(key)
        let app = configuration.app
        let record = try await store.read { tx -> APIKeyRecord? in
            guard let record = try await tx.apiKey(hash: hash), !record.disabled, try await tx.user(id: record.userID)?.app == app else { return nil }
            return record
        }
        guard let record else { throw TokenError(.invalidAPIKey, "the API key is unknown or disabled") }
        return record.userID
    }
}
