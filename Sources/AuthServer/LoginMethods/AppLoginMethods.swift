import Foundation
import Identity
import JOSE
import Sessions

/// The login methods of one app, made from its config once at server start; the login route
/// finds the path's `{provider}` here.
struct AppLoginMethods: Sendable {
    private let methods: [String: any LoginMethod]

    /// - Throws: `invalid_configuration` from a method that cannot be made.
    init(app: AppConfig, config: ServerConfig, transport: any HTTPTransport, accounts: AppAccounts?, passwordSlots: AddressSlots) throws {
        let environment = LoginEnvironment(server: config, transport: transport, accounts: accounts, passwordSlots: passwordSlots)
        var methods: [String: any LoginMethod] = [:]
        for (name, provider) in app.providers { methods[name] = try provider.makeMethod(environment) }
        self.methods = methods
    }

    /// The app's method named `name`, if the app has it.
    func method(named name: String) -> (any LoginMethod)? { methods[name] }

    /// The app's method of type `M`, if the app has it.
    func method<M: LoginMethod>(_ type: M.Type) -> M? { methods[M.name] as? M }

    /// Runs `method`'s check of a login body. A refused credential is `auth_failed`: with the
    /// custom function's own words (bounded, printable), else naming the check's code; a body
    /// of the wrong shape keeps its code, and so does every refusal of a method that
    /// ``LoginMethod/answersOwnRefusals``.
    static func authenticate(_ method: any LoginMethod, _ request: LoginRequest) async throws -> LoginProof {
        let name = type(of: method).name
        do {
            return try await method.authenticate(request)
        } catch let e as TokenError
            where e.code.rejectsToken && ![.missingParameter, .invalidParameter, .badRequest].contains(e.code)
            && !type(of: method).answersOwnRefusals
        {
            throw TokenError(.authFailed, e.code == .customFunctionRefused ? e.message : "the \(name) credential was refused (\(e.code.rawValue))")
        }
    }
}
