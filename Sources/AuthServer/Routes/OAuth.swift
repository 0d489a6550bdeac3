import Hummingbird
import JOSE
import Sessions

/// The OAuth 2.0 endpoints (docs/oauth.md): the JWKS, RFC 8414 metadata, the refresh grant, RFC 7662
/// introspection and RFC 7009 revocation. Each route decodes the form, calls Sessions, encodes;
/// errors are RFC 6749 §5.2 bodies (``OAuthEndpoint/respond(_:)``).
extension AuthServer {
    func addOAuthRoutes(to routes: RouteTable) {
        let metadata = OAuthMetadata.document(publicURL: config.publicURL)
        let jwksHeaders: HTTPFields = [.cacheControl: "public, max-age=300"]
        routes.on(.get, "/.well-known/jwks.json") { _, _ in
            // Encoded once per key-ring change, not read from the store per request (KeyRing.publishedJWKSDocument).
            let document = try await self.service.keyRing.publishedJWKSDocument()
            return JSONResponse.make(status: 200, bytes: document, headers: jwksHeaders)
        }
        for path in ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"] {
            routes.on(.get, path) { _, _ in JSONResponse.ok(metadata) }
        }
        routes.on(.post, "/oauth/token") { request, context in
            try await OAuthEndpoint.respond {
                let form = try await OAuthForm.read(request, context: context)
                let caller = try OAuthCaller.authenticate(request, form: form, config: self.config, requireSecret: false)
                guard let grant = form.optional("grant_type") else { throw OAuthError.invalidRequest("the grant_type parameter is missing") }
                guard grant == "refresh_token" else { throw OAuthError.unsupportedGrantType("only the refresh_token grant is supported") }
                let token = try form.required("refresh_token", maxBytes: 256)
                let (appID, pair) = try await self.oauthRefresh(token, caller: caller)
                context.app = appID
                return JSONResponse.ok(
                    [
                        "access_token": .string(pair.accessToken), "token_type": .string(pair.tokenType),
                        "expires_in": .int(pair.expiresIn), "refresh_token": .string(pair.refreshToken),
                    ], noStore: true)
            }
        }
        routes.on(.post, "/oauth/introspect") { request, context in
            try await OAuthEndpoint.respond {
                let form = try await OAuthForm.read(request, context: context)
                _ = try OAuthCaller.authenticate(request, form: form, config: self.config, requireSecret: true)
                let token = try form.required("token")
                let result = try await self.service.introspect(token, audiences: Set(self.apps.keys))
                return JSONResponse.ok(OAuthMetadata.introspection(result), noStore: true)
            }
        }
        routes.on(.post, "/oauth/revoke") { request, context in
            try await OAuthEndpoint.respond {
                let form = try await OAuthForm.read(request, context: context)
                let caller = try OAuthCaller.authenticate(request, form: form, config: self.config, requireSecret: false)
                let token = try form.required("token")
                let client: SessionManager.RevokingClient
                switch caller {
                case .client: client = .authenticated
                case .publicApp(let id): client = .publicClient(id)
                }
                try await self.service.revoke(token, by: client, audiences: Set(self.apps.keys))
                return JSONResponse.make(status: 200, .object([:]), noStore: true)
            }
        }
    }
}

/// Where errors of the OAuth routes become RFC 6749 §5.2 responses.
enum OAuthEndpoint {
    /// Runs `body`; an ``OAuthError``, or a Sessions refusal that has an OAuth meaning, is answered
    /// in the OAuth shape. Anything else (store down, a bug) goes on to the server's error mapping.
    static func respond(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let e as OAuthError {
            return e.response
        } catch let e as TokenError {
            guard let o = OAuthError(e) else { throw e }
            return o.response
        }
    }
}
