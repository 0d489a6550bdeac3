import Identity
import JOSE

/// `anon-user` `{}`: every login makes a new user (a random subject), counted under
/// `anonymous_per_address` besides `login_per_address`.
struct AnonymousLogin: LoginMethod {
    static let name = "anon-user"
    static let capabilities: LoginCapabilities = [.link]
    static let throttles = [LoginThrottle(name: "anon_addr", limitName: "anonymous_per_address", limit: { $0.anonymousPerAddress })]

    init(config: NoLoginConfig, environment: LoginEnvironment) {}

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        .identity(Identity(provider: Self.name, subject: try RandomID.hex(bytes: 12)), keep: nil)
    }
}
