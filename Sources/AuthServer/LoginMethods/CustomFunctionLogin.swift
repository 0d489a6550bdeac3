import Foundation
import Identity

/// `custom-function` `{ANY JSON}`: the app's function, called with the signed body, names the
/// identity (its 4xx words are the `auth_failed` message). It also serves `confirm/call` and
/// `reset/call` (``provider``).
struct CustomFunctionLogin: LoginMethod {
    static let name = "custom-function"
    static let loginBody: LoginBody = .anyObject
    static let capabilities: LoginCapabilities = [.link]

    struct Config: Sendable {
        var url: String
        var secret: [UInt8]
        /// `timeout`: the whole call, in seconds (1 s…60 s, default 10 s).
        var timeout: Int64 = 10
    }

    let provider: CustomFunctionProvider

    static func readConfig(_ o: inout ConfigObject, _ context: LoginConfigContext) throws -> Config {
        guard let url = try o.url("url") else { throw o.error("url", "required member is missing") }
        guard let s = try context.secret(&o, "secret_file") else { throw o.error("secret_file", "required member is missing") }
        var f = Config(url: url, secret: s)
        if let timeout = try o.duration("timeout") {
            guard (1...60).contains(timeout) else { throw o.error("timeout", "must be a duration of 1s…60s") }
            f.timeout = timeout
        }
        return f
    }

    init(config: Config, environment: LoginEnvironment) throws {
        var fc = CustomFunctionProvider.Configuration(url: config.url, secret: config.secret)
        fc.providerName = Self.name
        fc.timeout = TimeInterval(config.timeout)
        provider = try CustomFunctionProvider(configuration: fc, transport: environment.transport)
    }

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        .identity(try await provider.verify(payload: request.body.object), keep: nil)
    }
}
