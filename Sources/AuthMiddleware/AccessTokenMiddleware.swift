public import Foundation
public import Hummingbird
public import Identity
public import JOSE
import Logging
public import Sessions

/// A request context that can carry the caller a verified access token names.
///
/// Conform your application's context to it (one stored property), or use
/// ``AuthenticatedRequestContext``.
public protocol AccessTokenRequestContext: RequestContext {
    /// Set by ``AccessTokenMiddleware`` once the bearer token has been verified; `nil` before.
    var access: VerifiedAccess? { get set }
}

/// A ready-made ``AccessTokenRequestContext``.
public struct AuthenticatedRequestContext: AccessTokenRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var access: VerifiedAccess?

    public init(source: Source) {
        coreContext = .init(source: source)
        access = nil
    }
}

/// Who a verified access token speaks for (RFC 9068 §2.2).
public struct VerifiedAccess: Sendable, Hashable {
    /// `sub`: the user id.
    public var userID: String { claims.subject }
    /// `sid`: the session the token was issued in, when it names one.
    public var sessionID: String? { claims.sessionID }
    /// `client_id`: the app the token was issued to.
    public var clientID: String { claims.clientID }
    /// `scope`, split at spaces (RFC 9068 §2.2.3); empty when the token has none.
    public var scopes: [String]
    /// The registered claims, typed.
    public var claims: AccessTokenClaims
    /// Every claim of the token, for the ones this type does not name.
    public var claimSet: ClaimSet
    /// `kid` of the key that verified the token.
    public var keyID: String
}

/// Verifies the `Authorization: Bearer` access token of every request against the sign-in
/// server's JWKS and puts the caller into the request context.
///
/// The checks are RFC 9068's: the signature with a key the JWKS publishes (the key decides the
/// algorithm), header `typ` `at+jwt`, a `kid`, `iss`, `aud`, `exp` (with leeway) and the claims
/// the profile requires. A request without a token, or with one that fails a check, gets
/// 401 with `WWW-Authenticate: Bearer` (RFC 6750 §3; `error="invalid_token"` when a token was
/// sent); an unreachable JWKS with no usable cached keys gets 503. The token itself never
/// appears in a response or a log line.
///
/// Every client of an app gets tokens with the app's `aud`: the app's own App Services sessions
/// (`client_id` = the app id) and each OpenID Connect client of it (`client_id` = the client,
/// `scope` what the user allowed it). `allowedClients` names the `client_id`s this API serves
/// (others: 401 `invalid_token`), and `requiredScopes` the scopes every token must carry (a token
/// without one: 403 `insufficient_scope`, RFC 6750 §3.1).
///
/// The JWT alone says nothing of a session ended since it was signed: such a token is accepted
/// until its `exp`. Use the server's introspection endpoint where that matters. A signing key the
/// server revokes verifies here until the key set is refetched: within `maxKeyAge` with
/// ``init(jwksURL:transport:issuer:audience:leeway:maxKeyAge:maxStale:clock:)``.
///
/// ```swift
/// let middleware = try AccessTokenMiddleware<AuthenticatedRequestContext>(
///     jwksURL: "https://auth.example.com/.well-known/jwks.json", transport: AsyncHTTPClientTransport(),
///     issuer: "https://auth.example.com", audience: "myapp-abcde", maxKeyAge: 60,
///     allowedClients: ["myapp-abcde"])
/// let router = Router(context: AuthenticatedRequestContext.self)
/// router.group("api")
///     .add(middleware: middleware)
///     .get("me") { _, context in context.access?.userID ?? "" }
/// ```
public struct AccessTokenMiddleware<Context: AccessTokenRequestContext>: RouterMiddleware {
    /// Where the verification keys come from.
    public let keys: KeySource
    /// The RFC 9068 checks.
    public let options: VerifierOptions
    /// The `client_id`s whose tokens are accepted; `nil` accepts every client of the audience.
    public let allowedClients: Set<String>?
    /// The scopes every accepted token must carry (all of them); empty requires none.
    public let requiredScopes: Set<String>
    /// The keys and checks, with the verified-token cache: a token seen before costs a lookup
    /// and the exp/nbf comparison, not a signature.
    private let verifier: CachingVerifier

    /// Verifies against a remote JWKS (normally the server's `/.well-known/jwks.json`), cached
    /// and refetched on an unknown `kid` as ``RemoteJWKS`` does.
    /// - Parameters:
    ///   - issuer: the server's `public_url`, exactly.
    ///   - audience: the app id the tokens must be issued for.
    ///   - leeway: clock skew tolerated on `exp` and `iat`, in seconds.
    ///   - allowedClients: the `client_id`s served (`nil`: every client of the audience).
    ///   - requiredScopes: the scopes every token must carry.
    public init(
        jwks: RemoteJWKS, issuer: String, audience: String, leeway: TimeInterval = 60, clock: TokenClock = .system,
        allowedClients: Set<String>? = nil, requiredScopes: Set<String> = []
    ) {
        self.init(
            keys: .remote(jwks), issuer: issuer, audience: audience, leeway: leeway, clock: clock,
            allowedClients: allowedClients, requiredScopes: requiredScopes)
    }

    /// Verifies against the server's JWKS at `jwksURL`, fetched with ``keyPolicy(maxKeyAge:maxStale:)``:
    /// a key the server revokes stops verifying here within `maxKeyAge` seconds (plus `maxStale`
    /// while the server cannot be reached; past it, 503), whatever `Cache-Control` the JWKS has.
    /// - Throws: `invalid_configuration` for a URL that is not https (or http on loopback).
    /// `allowedClients` and `requiredScopes` as in ``init(jwks:issuer:audience:leeway:clock:allowedClients:requiredScopes:)``.
    public init(
        jwksURL: String, transport: any HTTPTransport, issuer: String, audience: String, leeway: TimeInterval = 60,
        maxKeyAge: TimeInterval = 60, maxStale: TimeInterval = 0, clock: TokenClock = .system,
        allowedClients: Set<String>? = nil, requiredScopes: Set<String> = []
    ) throws {
        let jwks = try RemoteJWKS(url: jwksURL, transport: transport, clock: clock, policy: Self.keyPolicy(maxKeyAge: maxKeyAge, maxStale: maxStale))
        self.init(
            jwks: jwks, issuer: issuer, audience: audience, leeway: leeway, clock: clock,
            allowedClients: allowedClients, requiredScopes: requiredScopes)
    }

    /// The JWKS policy of a resource server: keys are refetched at least every `maxKeyAge` seconds
    /// (at least 1), however long the server's `Cache-Control: max-age` (300 s) allows; while
    /// fetches fail, the last keys are served for at most `maxStale` more seconds (``RemoteJWKS``'s
    /// default is an hour). This bounds how long a revoked signing key keeps verifying here.
    public static func keyPolicy(maxKeyAge: TimeInterval = 60, maxStale: TimeInterval = 0) -> RemoteJWKS.Policy {
        var policy = RemoteJWKS.Policy()
        policy.maximumCacheAge = max(1, maxKeyAge)
        policy.minimumCacheAge = min(policy.minimumCacheAge, policy.maximumCacheAge)
        policy.defaultCacheAge = min(policy.defaultCacheAge, policy.maximumCacheAge)
        policy.unknownKeyCooldown = min(policy.unknownKeyCooldown, policy.maximumCacheAge)
        policy.staleIfError = max(0, maxStale)
        return policy
    }

    /// Verifies against any key source (a fixed JWKS, for tests or an offline deployment).
    public init(
        keys: KeySource, issuer: String, audience: String, leeway: TimeInterval = 60, clock: TokenClock = .system,
        allowedClients: Set<String>? = nil, requiredScopes: Set<String> = []
    ) {
        self.keys = keys
        self.allowedClients = allowedClients
        self.requiredScopes = requiredScopes
        self.options = AccessTokenVerifier.options(issuer: issuer, audiences: [audience], leeway: leeway, clock: clock)
        self.verifier = CachingVerifier(source: keys, options: options)
    }

    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.access = try await verify(request: request, logger: context.logger)
        return try await next(request, context)
    }

    /// The verified caller of `request`.
    /// - Throws: ``BearerTokenError``.
    func verify(request: Request, logger: Logger) async throws -> VerifiedAccess {
        let token = try BearerTokenError.token(in: request.headers[values: .authorization])
        do {
            let verified = try await verifier.verify(token)
            // RFC 9068 tokens of this server always name their key; a token without one is not ours.
            guard let keyID = verified.header.keyID, verified.keyID == keyID else {
                throw TokenError(.invalidInput, "access token header has no kid")
            }
            let scopes = verified.claims["scope"]?.stringValue.map { $0.split(separator: " ").map(String.init) } ?? []
            let claims = try AccessTokenClaims(verified.claims)
            // The lane checks come after the signature: nothing the token says is read before it.
            // They are the sign-in server's own (the key binding, the client, the scopes).
            let requirement = AccessRequirement(clients: allowedClients.map { .only($0) } ?? .any, scopes: requiredScopes)
            do {
                try requirement.check(claims, app: claims.audience.first ?? "", presentedAs: .bearer)
            } catch {
                switch error.reason {
                case .insufficientScope:
                    logger.debug("access token refused", metadata: ["code": "insufficient_scope"])
                    throw BearerTokenError.insufficientScope(requiredScopes)
                case .wrongClient:
                    logger.debug("access token refused", metadata: ["code": "client_not_allowed"])
                    throw BearerTokenError.invalidToken
                case .invalidToken, .sessionEnded, .keyBound:
                    logger.debug("access token refused", metadata: ["code": "\(error.code.rawValue)"])
                    throw BearerTokenError.invalidToken
                }
            }
            return VerifiedAccess(scopes: scopes, claims: claims, claimSet: verified.claims, keyID: keyID)
        } catch let error as TokenError where error.code == .providerUnavailable {
            logger.warning("access token not checked: JWKS unavailable", metadata: ["code": "\(error.code.rawValue)"])
            throw BearerTokenError.unavailable
        } catch let error as TokenError {
            logger.debug("access token refused", metadata: ["code": "\(error.code.rawValue)"])
            throw BearerTokenError.invalidToken
        }
    }
}
