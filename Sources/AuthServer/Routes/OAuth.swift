import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// The OAuth 2.0 endpoints (docs/oauth.md): the JWKS, RFC 8414 metadata, the token endpoint's grants, RFC 7662
/// introspection and RFC 7009 revocation. Each route decodes the form, calls Sessions, encodes;
/// errors are RFC 6749 §5.2 bodies (``OAuthEndpoint/respond(_:)``). The table reads the form and
/// authenticates the client before the handler runs.
struct OAuthRoutes: Sendable {
    /// The store-wide session service (the key ring, introspection, revocation).
    let service: SessionService
    let appIDs: Set<String>
    let metadataDocument: JSONObject
    let metadataHeaders: HTTPFields
    /// The grants this config offers (``OAuthGrants``), by `grant_type`, and their names in order.
    let grants: [String: any OAuthGrant]
    let grantNames: [String]
    static let jwksHeaders: HTTPFields = [.cacheControl: "public, max-age=300"]

    init(server: AuthServer) {
        service = server.service
        appIDs = Set(server.apps.keys)
        // An OpenID Provider's discovery document once OpenID Connect clients exist (at both paths).
        grantNames = OAuthGrants.names(offeredBy: server.config)
        metadataDocument =
            server.config.oidcClients.isEmpty
            ? OAuthMetadata.document(publicURL: server.config.publicURL, grants: grantNames, clients: OAuthClients(server.config).kinds)
            : OIDCDiscovery.document(server.config)
        metadataHeaders = server.config.oidcClients.isEmpty ? [:] : [.cacheControl: OIDCDiscovery.cacheControl]
        grants = OAuthGrants.make(for: server)
    }

    func jwks(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        // Encoded once per key-ring change, not read from the store per request (KeyRing.publishedJWKSDocument).
        let document = try await service.keyRing.publishedJWKSDocument()
        return JSONResponse.make(status: 200, bytes: document, headers: Self.jwksHeaders)
    }

    /// The RFC 8414 / OpenID Connect Discovery document.
    func metadata(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(status: 200, .object(metadataDocument), headers: metadataHeaders)
    }

    /// The grant the form names (``OAuthGrants``), for the authenticated caller.
    func token(_ form: OAuthForm, _ client: OAuthClient, _ context: AuthRequestContext) async throws -> Response {
        guard let grantType = form.optional("grant_type") else { throw OAuthError.invalidRequest("the grant_type parameter is missing") }
        if let relyingParty = client.relyingParty { context.app = relyingParty.app }
        guard let grant = grants[grantType] else { throw OAuthGrants.unsupported(offered: grantNames) }
        return try await grant.answer(GrantRequest(form: form, client: client, context: context))
    }

    func introspect(_ form: OAuthForm, _ client: OAuthClient, _ context: AuthRequestContext) async throws -> Response {
        let token = try form.required("token")
        let result = try await service.introspect(token, audiences: appIDs)
        // A resource server (a `clients` entry without redirect URIs) introspects every app's tokens;
        // an OpenID Connect client only its own (RFC 7662 §4: any other token is simply not active to it).
        if client.kind == .relyingParty, result.response["client_id"]?.stringValue != client.id {
            return JSONResponse.ok(["active": false], noStore: true)
        }
        return JSONResponse.ok(OAuthMetadata.introspection(result), noStore: true)
    }

    func revoke(_ form: OAuthForm, _ client: OAuthClient, _ context: AuthRequestContext) async throws -> Response {
        let token = try form.required("token")
        let revoking: SessionManager.RevokingClient = client.servesEveryApp ? .authenticated : .publicClient(client.id)
        try await service.revoke(token, by: revoking, audiences: appIDs)
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
