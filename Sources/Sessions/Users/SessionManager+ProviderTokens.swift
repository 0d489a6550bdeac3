import JOSE

extension SessionManager {
    /// Keeps a provider token (Apple's refresh token) with an identity of this manager's app, sealed under the master key.
    /// - Throws: `invalid_configuration` without a master key; `store_unavailable`.
    public func keepProviderToken(_ token: String, provider: String, subject: String) async throws {
        guard let master = configuration.masterKey else { throw TokenError(.invalidConfiguration, "a master key is needed to keep provider tokens") }
        let sealed = try Sealer.seal(Array(token.utf8), key: master, purpose: .providerToken, context: [provider, subject])
        let app = configuration.app
        try await store.transaction { tx in try await tx.setSealedProviderToken(app: app, provider: provider, subject: subject, sealed: sealed) }
    }

    /// The provider tokens kept for a user's identities, unsealed: `(provider, token)` pairs.
    public func providerTokens(of userID: String) async throws -> [(provider: String, token: String)] {
        guard let master = configuration.masterKey else { return [] }
        return try await identities(of: userID).compactMap { i in
            guard let sealed = i.sealedProviderToken,
                let plain = try? Sealer.open(sealed, key: master, purpose: .providerToken, context: [i.provider, i.subject])
            else { return nil }
            return (i.provider, String(decoding: plain, as: UTF8.self))
        }
    }
}
