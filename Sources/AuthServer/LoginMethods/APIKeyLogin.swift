import Sessions

/// `api-key` `{"key"}`: signs in as the key's owner (no identity); the session ends with the key.
/// Never linked.
struct APIKeyLogin: LoginMethod {
    static let name = "api-key"
    static let loginBody: LoginBody = .members([.init("key")])
    static let capabilities: LoginCapabilities = []

    init(config: NoLoginConfig, environment: LoginEnvironment) {}

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        let key = try await request.sessions.apiKey(forKey: try request.body.string("key", maxBytes: 256))
        return .apiKey(userID: key.userID, keyID: key.id)
    }
}
