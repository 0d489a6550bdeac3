import Hummingbird

/// Adds routes to the router, remembering their paths (for 405) and putting the bearer step in
/// front of those that need one.
struct RouteTable {
    let router: Router<AuthRequestContext>
    let known: KnownPaths
    let server: AuthServer
    /// What each route added so far is, for the OpenAPI document.
    let described = RouteDescriptions()

    /// The App Services base path.
    static let base = "/api/client/v2.0"

    /// Adds `handler` for `method` on `path` (`:name` segments are parameters); with `bearer`,
    /// the request must carry that kind of token and the handler sees ``AuthRequestContext/session``.
    func on(
        _ method: HTTPRequest.Method, _ path: String, bearer: AuthenticatedSession.Kind? = nil,
        _ handler: @escaping @Sendable (Request, AuthRequestContext) async throws -> Response
    ) {
        known.add(path, method: method)
        described.add(RouteDescription(method, path, bearer: bearer.map { $0 == .access ? .access : .refresh } ?? .none))
        if let bearer {
            router.group().add(middleware: BearerMiddleware(server: server, kind: bearer, optional: false))
                .on(RouterPath(path), method: method) { request, context in try await handler(request, context) }
        } else {
            router.on(RouterPath(path), method: method) { request, context in try await handler(request, context) }
        }
    }

    /// Like ``on(_:_:bearer:_:)`` with an optional access token (a login that may link).
    func onOptionalAccess(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, AuthRequestContext) async throws -> Response
    ) {
        known.add(path, method: method)
        described.add(RouteDescription(method, path, bearer: .optionalAccess))
        router.group().add(middleware: BearerMiddleware(server: server, kind: .access, optional: true))
            .on(RouterPath(path), method: method) { request, context in try await handler(request, context) }
    }
}

extension AuthServer {
    /// Every route group. The OAuth endpoints add theirs here too.
    func addRoutes(to routes: RouteTable) {
        addHealthRoutes(to: routes)
        addLocationRoutes(to: routes)
        addLoginRoutes(to: routes)
        addSessionRoutes(to: routes)
        addProfileRoutes(to: routes)
        addAPIKeyRoutes(to: routes)
        addOAuthRoutes(to: routes)
        addAccountRoutes(to: routes)
        addOpenAPIRoute(to: routes)  // last: it describes the routes added before it
    }
}
