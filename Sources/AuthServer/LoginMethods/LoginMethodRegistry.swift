import Foundation

/// The login methods the server knows: the config reader takes `apps.ID.providers` members by
/// these names, and each app's ``AppLoginMethods`` are made from what it read.
struct LoginMethodRegistry: Sendable {
    let methods: [any LoginMethod.Type]

    /// Every method of the server, one line each.
    static let standard = LoginMethodRegistry(methods: [
        AnonymousLogin.self,
        UserpassLogin.self,
        APIKeyLogin.self,
        CustomTokenLogin.self,
        CustomFunctionLogin.self,
        GoogleLogin.self,
        AppleLogin.self,
        FacebookLogin.self,
        PasskeyLogin.self,
    ])

    /// The registry the config reader consults: ``standard``, unless a task binds another (a
    /// test that registers a method of its own).
    @TaskLocal static var inUse = standard

    /// The method whose config name is `name`.
    func method(named name: String) -> (any LoginMethod.Type)? { methods.first { $0.name == name } }

    var names: [String] { methods.map { $0.name } }

    /// This registry with `method` too (or instead of the one of the same name).
    func adding(_ method: any LoginMethod.Type) -> LoginMethodRegistry {
        LoginMethodRegistry(methods: methods.filter { $0.name != method.name } + [method])
    }
}

/// One method's member of `apps.ID.providers`, read and checked: which method, and its config.
public struct ProviderConfig: Sendable {
    /// The method's config name.
    public let name: String
    let method: any LoginMethod.Type
    private let config: any Sendable
    private let make: @Sendable (LoginEnvironment) throws -> any LoginMethod

    /// Reads `member` as `method`'s config.
    init<M: LoginMethod>(_ method: M.Type, _ member: inout ConfigObject, _ context: LoginConfigContext) throws {
        let config = try M.readConfig(&member, context)
        self.name = M.name
        self.method = method
        self.config = config
        self.make = { environment in try M(config: config, environment: environment) }
    }

    /// The config when it is `method`'s.
    func config<M: LoginMethod>(of method: M.Type) -> M.Config? { config as? M.Config }

    /// The method, made at server start.
    func makeMethod(_ environment: LoginEnvironment) throws -> any LoginMethod { try make(environment) }
}
