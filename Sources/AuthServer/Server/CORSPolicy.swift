import Hummingbird
import OIDCProvider

/// Which browser origins may read the server's answers (the Fetch standard's CORS), as docs/server.md's
/// "A web app on another origin" says, decided once from the config.
///
/// - The App Services routes (under `BASE`) answer the origins of their app's
///   `allowed_request_origins`: the path's app under `BASE/app/{app}/`; elsewhere the bearer's
///   app once the table proved it, and any app's before (a refused or missing token's error,
///   which names no app, must still reach realm-web as the 401 it retries on).
/// - Discovery and the JWKS are public documents: `*`.
/// - `/oauth/token`, `/oauth/revoke` and `/oauth/userinfo` answer the origins of the public
///   clients' `redirect_uris` (a loopback one on any port, as its redirects match) and the
///   `allowed_request_origins` of every app that has OpenID Connect clients.
/// - `Access-Control-Allow-Credentials` on one answer only: the redirect flow's link start
///   (`GET BASE/app/{app}/auth/providers/{provider}/login?link=true…`) and its preflight, which
///   realm-web's `linkCredentials` fetches with `credentials: "include"` (the fetch fails without
///   it). That answer reads no cookie and sets none. Any other origin, `null` included, and any
///   other path get no `Access-Control-*` header.
struct CORSPolicy: Sendable {
    /// `Access-Control-Expose-Headers`: what realm-web and a single-page app read of an answer.
    static let exposed = "X-BAAS-Location, Retry-After, WWW-Authenticate"
    static let methods = "GET, POST, PUT, DELETE"
    static let headers = "Authorization, Content-Type, Accept, DPoP"
    /// `Access-Control-Max-Age` of a preflight, in seconds.
    static let maxAge = "600"
    static let publicPaths: Set<String> = ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/.well-known/jwks.json"]
    static let oauthPaths: Set<String> = ["/oauth/token", "/oauth/revoke", "/oauth/userinfo"]

    let byApp: [String: Set<String>]
    let anyApp: Set<String>
    let oauth: Set<String>
    /// `scheme://host` of public clients' loopback redirect URIs, whose port is any.
    let oauthLoopback: Set<String>

    init(config: ServerConfig) {
        byApp = config.apps.mapValues { Set($0.allowedRequestOrigins) }
        anyApp = byApp.values.reduce(into: []) { $0.formUnion($1) }
        var oauth: Set<String> = [], loopback: Set<String> = []
        for client in config.oidcClients.values {
            oauth.formUnion(byApp[client.app] ?? [])
            guard client.isPublic else { continue }
            for uri in client.redirectURIs {
                guard let parts = OIDCRedirectURI.Parts(uri), parts.scheme == "https" || parts.scheme == "http" else { continue }
                let base = "\(parts.scheme)://\(parts.host.lowercased())"
                if parts.isLoopback {
                    loopback.insert(base)
                } else {
                    oauth.insert(base + (parts.port.map { $0 == "443" ? "" : ":" + $0 } ?? ""))
                }
            }
        }
        self.oauth = oauth
        oauthLoopback = loopback
    }

    /// What a path's answers are to browsers of other origins.
    enum Scope: Equatable {
        case publicDocument
        /// An App Services route; the path's app when it names one.
        case appServices(pathApp: String?)
        case oauth
        case none
    }

    static func scope(of path: String) -> Scope {
        if publicPaths.contains(path) { return .publicDocument }
        if oauthPaths.contains(path) { return .oauth }
        let base = RouteTable.base + "/"
        guard path.hasPrefix(base) else { return .none }
        let rest = path.dropFirst(base.count).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        if rest.count >= 2, rest[0] == "app" { return .appServices(pathApp: String(rest[1])) }
        return .appServices(pathApp: nil)
    }

    /// The `Access-Control-Allow-Origin` for `origin` on `scope`, or `nil` when it is refused.
    /// - Parameter bearerApp: the app the table proved the request's bearer of (App Services routes
    ///   without an app in the path); `nil` for a preflight or before a bearer was proved.
    func allowedOrigin(_ origin: String, scope: Scope, bearerApp: String?) -> String? {
        switch scope {
        case .publicDocument:
            return "*"
        case .appServices(let pathApp?):
            return byApp[pathApp]?.contains(origin) == true ? origin : nil
        case .appServices(nil):
            if let bearerApp { return byApp[bearerApp]?.contains(origin) == true ? origin : nil }
            return anyApp.contains(origin) ? origin : nil
        case .oauth:
            if oauth.contains(origin) { return origin }
            guard let parts = OIDCRedirectURI.Parts(origin), parts.isLoopback else { return nil }
            return oauthLoopback.contains("\(parts.scheme)://\(parts.host)") ? origin : nil
        case .none:
            return nil
        }
    }

    /// `true` for a CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`.
    static func isPreflight(_ request: Request) -> Bool {
        request.method == .options && request.headers[.origin] != nil && request.headers[.accessControlRequestMethod] != nil
    }

    /// The answer to a preflight: 204, with the CORS headers when the origin is allowed (none when
    /// it is not, which the browser takes as a refusal). It needs no token and counts toward no limit.
    func preflight(_ request: Request) -> Response {
        var response = Response(status: .noContent)
        guard let origin = request.headers[.origin] else { return response }
        let scope = Self.scope(of: request.uri.path)
        if scope != .none { response.headers[.vary] = "Origin" }
        guard let allowed = allowedOrigin(origin, scope: scope, bearerApp: nil) else { return response }
        response.headers[.accessControlAllowOrigin] = allowed
        response.headers[.accessControlAllowMethods] = Self.methods
        response.headers[.accessControlAllowHeaders] = Self.headers
        response.headers[.accessControlMaxAge] = Self.maxAge
        if request.headers[.accessControlRequestMethod] == "GET", Self.isLinkStart(request) {
            response.headers[.accessControlAllowCredentials] = "true"
        }
        return response
    }

    /// Adds the CORS headers to `response` of `request` when its `Origin` is allowed there.
    func apply(to response: inout Response, of request: Request, bearerApp: String?) {
        guard let origin = request.headers[.origin] else { return }
        let scope = Self.scope(of: request.uri.path)
        guard scope != .none else { return }
        if scope != .publicDocument {
            let vary = response.headers[.vary]
            response.headers[.vary] = vary.map { $0.contains("Origin") ? $0 : $0 + ", Origin" } ?? "Origin"
        }
        guard let allowed = allowedOrigin(origin, scope: scope, bearerApp: bearerApp) else { return }
        response.headers[.accessControlAllowOrigin] = allowed
        if scope != .publicDocument { response.headers[.accessControlExposeHeaders] = Self.exposed }
        if request.method == .get, Self.isLinkStart(request) { response.headers[.accessControlAllowCredentials] = "true" }
    }

    /// `true` for the redirect flow's link start: `BASE/app/{app}/auth/providers/{provider}/login` with `link=true`.
    static func isLinkStart(_ request: Request) -> Bool {
        guard request.uri.queryParameters.get("link") == "true" else { return false }
        let parts = request.uri.path.dropFirst(RouteTable.base.count).split(separator: "/", omittingEmptySubsequences: false)
        return request.uri.path.hasPrefix(RouteTable.base + "/") && parts.count == 7 && parts[1] == "app" && parts[3] == "auth"
            && parts[4] == "providers" && parts[6] == "login"
    }
}
