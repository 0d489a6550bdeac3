import Hummingbird
import JOSE
import Sessions

/// The OAuth 2.0 endpoints (docs/oauth.md): the JWKS, RFC 8414 metadata, the refresh grant, RFC 7662
/// introspection and RFC 7009 revocation. Each route decodes the form, calls Sessions, encodes;
/// errors are RFC 6749 §5.2 bodies (``OAuthEndpoint/respond(_:)``). The table reads the form and
/// authenticates the client before the handler runs.
struct OAuthRoutes: Sendable {
    /// The store-wide session service (the key ring, introspection, revocation).
    let service: SessionService
    let appIDs: Set<String>
    let metadataDocument: JSONObject
    /// ``AuthServer/oauthRefresh(_:caller:)``.
    let refresh: @Sendable (String, OAuthCaller) async throws -> (app: String, tokens: TokenPair)
    static let jwksHeaders: HTTPFields = [.cacheControl: "public, max-age=300"]

    init(server: AuthServer) {
        service = server.service
        appIDs = Set(server.apps.keys)
        metadataDocument = OAuthMetadata.document(publicURL: server.config.publicURL)
        refresh = { try await server.oauthRefresh($0, caller: $1) }
    }

    func jwks(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        // Encoded once per key-ring change, not read from the store per request (KeyRing.publishedJWKSDocument).
        let document = try await service.keyRing.publishedJWKSDocument()
        return JSONResponse.make(status: 200, bytes: document, headers: Self.jwksHeaders)
    }

    /// The RFC 8414 / OpenID Connect Discovery document.
    func metadata(_ request: Request, _ context: AuthRequestContext) async throws -> Response { JSONResponse.ok(metadataDocument) }

    /// The refresh grant.
    func token(_ form: OAuthForm, _ caller: OAuthCaller, _ context: AuthRequestContext) async throws -> Response {
        guard let grant = form.optional("grant_type") else { throw OAuthError.invalidRequest("the grant_type parameter is missing") }
        guard grant == "refresh_token" else { throw OAuthError.unsupportedGrantType("only the refresh_token grant is supported") }
        let token = try form.required("refresh_token", maxBytes: 256)
        let (appID, pair) = try await refresh(token, caller)
        context.app = appID
        return JSONResponse.ok(
            [
                "access_token": .string(pair.accessToken), "token_type": .string(pair.tokenType),
                "expires_in": .int(pair.expiresIn), "refresh_token": .string(pair.refreshToken),
            ], noStore: true)
    }

    func introspect(_ form: OAuthForm, _ caller: OAuthCaller, _ context: AuthRequestContext) async throws -> Response {
        let token = try form.required("token")
        let result = try await service.introspect(token, audiences: appIDs)
        return JSONResponse.ok(OAuthMetadata.introspection(result), noStore: true)
    }

    func revoke(_ form: OAuthForm, _ caller: OAuthCaller, _ context: AuthRequestContext) async throws -> Response {
        let token = try form.required("token")
        let client: SessionManager.RevokingClient
        switch caller {
        case .client: client = .authenticated
        case .publicApp(let id): client = .publicClient(id)
        }
        try await service.revoke(token, by: client, audiences: appIDs)
        return JSONResponse.make(status: 200, .object([:]), noStore: true)
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
