import AuthMiddleware
import Hummingbird
import JOSE
import Sessions

/// Serves the rows of ``RouteTable/rows`` (Routes/Routes.swift): for each, it remembers the path
/// (for 405), applies the row's bearer and its request-only throttles, then runs the named handler.
struct RouteTable {
    let router: Router<AuthRequestContext>
    let known: KnownPaths
    let server: AuthServer

    /// The App Services base path.
    static let base = "/api/client/v2.0"

    /// One route: what it is (method, path, bearer, throttles, handler name) and its handler.
    struct Row: Sendable {
        let method: HTTPRequest.Method
        let path: String
        let bearer: RouteDescription.Bearer
        let throttles: [RouteThrottle]
        /// The password-hashing budget (``AuthServer/withPasswordBudget(_:_:)``) held around the
        /// whole handler: 503 `ServiceUnavailable` at once when it is spent.
        let passwordWork: Bool
        let name: String
        let handler: @Sendable (RouteGroups) -> RouteHandler

        init(
            _ method: HTTPRequest.Method, _ path: String, bearer: RouteDescription.Bearer = .none, throttles: [RouteThrottle] = [],
            passwordWork: Bool = false, _ name: String, _ handler: @escaping @Sendable (RouteGroups) -> RouteHandler
        ) {
            self.method = method
            self.path = path
            self.bearer = bearer
            self.throttles = throttles
            self.passwordWork = passwordWork
            self.name = name
            self.handler = handler
        }

        var description: RouteDescription {
            RouteDescription(method: method, path: path, bearer: bearer, throttles: throttles.map(\.name), handler: name)
        }
    }

    /// Adds every row to the router.
    func addAll() {
        let groups = RouteGroups(server: server), clients = OAuthClients(server.config)
        for row in Self.rows { add(row, handler: row.handler(groups), clients: clients) }
    }

    private func add(_ row: Row, handler: RouteHandler, clients: OAuthClients) {
        known.add(row.path, method: row.method)
        let server = self.server, throttles = row.throttles.filter(\.byTable)
        let bearer = BearerCheck(server: server)
        let run: @Sendable (Request, AuthRequestContext) async throws -> Response
        switch handler {
        case .plain(let handle) where !throttles.isEmpty:
            // The limits a row names are counted whatever its handler kind: a plain handler's
            // before it runs (it stores a challenge, or checks a code).
            run = { request, context in
                for throttle in throttles { try await throttle.apply(server, context) }
                return try await handle(request, context)
            }
        case .plain(let handle):
            run = handle
        case .user(let handle):
            let kind: AuthenticatedSession.Kind = row.bearer == .refresh ? .refresh : .access
            run = { request, context in
                let session = try await bearer.session(of: request, kind: kind, context: context)
                return try await handle(request, UserRequestContext(base: context, session: session, app: try server.app(session.app)))
            }
        case .optionalUser(let handle):
            run = { request, context in
                var context = context
                if request.headers[.authorization] != nil { context.session = try await bearer.session(of: request, kind: .access, context: context) }
                return try await handle(request, context)
            }
        case .token(let handle):
            run = { request, context in try await handle(request, context, try BearerCheck.token(of: request)) }
        case .client(let requireSecret, let handle):
            run = { request, context in
                try await OAuthEndpoint.respond {
                    let form = try await OAuthForm.read(request, context: context)
                    let client = try ClientAuthentication.authenticate(request, form: form, clients: clients, requireSecret: requireSecret)
                    return try await handle(form, client, context)
                }
            }
        case .resource(let requirement, let handle):
            run = { request, context in
                do {
                    let access = try await ResourceCheck(server: server).access(of: request, requirement: requirement, context: context)
                    return try await handle(request, context, access)
                } catch let refusal as BearerTokenError {
                    return try refusal.response(from: request, context: context)
                }
            }
        case .checked(let handle):
            let optionalAccess = row.bearer == .optionalAccess
            run = { request, context in
                var context = context
                if optionalAccess, request.headers[.authorization] != nil {
                    context.session = try await bearer.session(of: request, kind: .access, context: context)
                }
                return try await handle(request, context) { [context] in
                    for throttle in throttles { try await throttle.apply(server, context) }
                }
            }
        }
        if row.passwordWork {
            router.on(RouterPath(row.path), method: row.method) { request, context -> Response in
                try await server.withPasswordBudget(context) { try await run(request, context) }
            }
        } else {
            router.on(RouterPath(row.path), method: row.method, use: run)
        }
    }

    /// What the table says of every route, in its order: the OpenAPI document's one input.
    static var descriptions: [RouteDescription] { rows.map(\.description) }
}

extension AuthServer {
    /// Every route of ``RouteTable/rows``.
    func addRoutes(to routes: RouteTable) { routes.addAll() }
}

/// A handler as the table calls it, by what the table does before it.
enum RouteHandler: Sendable {
    /// Called as is (a route without a bearer, or one whose handler proves its credential).
    case plain(@Sendable (Request, AuthRequestContext) async throws -> Response)
    /// After the row's bearer (access or refresh) proved a live session of the path's app.
    case user(@Sendable (Request, UserRequestContext) async throws -> Response)
    /// With ``AuthRequestContext/session`` set when the request has an `Authorization` header
    /// (an access token, proved as for ``user(_:)``), `nil` otherwise.
    case optionalUser(@Sendable (Request, AuthRequestContext) async throws -> Response)
    /// With the bearer token read from the `Authorization` header (401 `InvalidSession` without
    /// one); the handler looks it up itself (a refresh in one store transaction, a logout).
    case token(@Sendable (Request, AuthRequestContext, String) async throws -> Response)
    /// With the OAuth form read and the client authenticated (``ClientAuthentication``: a
    /// method of ``ClientAuthMethods``; unless `requireSecret`, also a public client's
    /// `client_id`); errors in the OAuth shape (``OAuthEndpoint/respond(_:)``).
    case client(requireSecret: Bool, @Sendable (OAuthForm, OAuthClient, AuthRequestContext) async throws -> Response)
    /// After the one resource check (``ResourceCheck``) proved an access token of any client of
    /// an app that meets `requirement`; refusals in RFC 6750's shape (``BearerTokenError``). For
    /// OpenID Connect resources (userinfo); the row's bearer is `resource`.
    case resource(AccessRequirement, @Sendable (Request, AuthRequestContext, ResourceAccess) async throws -> Response)
    /// In two steps with the row's throttles between them (see ``RouteHandler/checked(_:then:)``);
    /// on a row whose bearer is `optionalAccess`, with ``AuthRequestContext/session`` set as for
    /// ``optionalUser(_:)``.
    case checked(@Sendable (Request, AuthRequestContext, _ throttle: @Sendable () async throws -> Void) async throws -> Response)

    /// Reads and checks the request (`read`: the app, its provider, the body), then the table
    /// counts the row's throttles, then `run` does the work: a malformed request is refused
    /// without being counted, and a refused one costs nothing more.
    static func checked<Input: Sendable>(
        _ read: @escaping @Sendable (Request, AuthRequestContext) async throws -> Input,
        then run: @escaping @Sendable (Input, AuthRequestContext) async throws -> Response
    ) -> RouteHandler {
        .checked { request, context, throttle in
            let input = try await read(request, context)
            try await throttle()
            return try await run(input, context)
        }
    }
}

/// A limit a route counts, by its config name (`limits` in the config). A limit on the client's
/// address is counted by the table, and so is one the path's login method declares; one whose key
/// or moment only the handler knows (an email, a token id, a failed check) is counted by the
/// handler, and named in the row all the same.
struct RouteThrottle: Sendable {
    let name: String
    private let kind: Kind

    private enum Kind: Sendable {
        /// Key `prefix` + the client's address.
        case perAddress(prefix: String, limit: @Sendable (ServerConfig.Limits) -> RateLimit)
        /// The path's login method's ``LoginThrottle`` of this limit, if it declares one.
        case loginMethod
        case inHandler
    }

    var byTable: Bool {
        if case .inHandler = kind { return false }
        return true
    }

    /// Counted by the table, per client address: key `prefix` + the address.
    static func perAddress(_ name: String, key prefix: String, _ limit: @escaping @Sendable (ServerConfig.Limits) -> RateLimit) -> RouteThrottle {
        RouteThrottle(name: name, kind: .perAddress(prefix: prefix, limit: limit))
    }

    /// Counted by the table when the login method of the path's `{app}` and `{provider}` declares
    /// a ``LoginThrottle`` of limit `name` (`anon-user`: `anonymous_per_address`).
    static func ofLoginMethod(_ name: String) -> RouteThrottle { RouteThrottle(name: name, kind: .loginMethod) }

    /// Counted by the handler (named here so that the table shows it).
    static func inHandler(_ name: String) -> RouteThrottle { RouteThrottle(name: name, kind: .inHandler) }

    func apply(_ server: AuthServer, _ context: AuthRequestContext) async throws {
        let address = context.clientAddress ?? ""
        switch kind {
        case .perAddress(let prefix, let limit):
            try await server.throttle(prefix + address, limit(server.config.limits), context)
        case .loginMethod:
            guard let app = context.parameters.get("app"), let provider = context.parameters.get("provider"),
                let method = server.loginMethods[app]?.method(named: provider)
            else { return }
            for throttle in type(of: method).throttles where throttle.limitName == name {
                try await server.throttle(throttle.name + ":" + address, throttle.limit(server.config.limits), context)
            }
        case .inHandler:
            return
        }
    }
}
