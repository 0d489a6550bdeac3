public import JOSE

/// An access token that passed every check of ``SessionService/checkAccess(_:audiences:requirement:presentedAs:singleSpace:)``:
/// who it speaks for, for which client, with which scopes and how the user signed in.
public struct ResourceAccess: Sendable, Hashable {
    /// The app the token was issued for: the verified `aud` that is one of the checked audiences.
    public var app: String
    /// `sub`: the user, a present and enabled user of ``app``.
    public var userID: String
    /// `sid`: the session, live when it was checked.
    public var sessionID: String
    /// `client_id`: the app itself for an App Services session, else an OpenID Connect client of it.
    public var clientID: String
    /// `scope`, split at spaces; empty for an App Services session.
    public var scopes: [String]
    /// RFC 8176 `amr` of the session's sign-in (empty for a session from before sessions kept it).
    public var amr: [String]
    /// `acr` of that sign-in.
    public var acr: String?
    /// The key the token is bound to (RFC 9449 `cnf.jkt`); `nil` for a bearer token.
    public var keyThumbprint: String?
    /// Every registered claim, typed.
    public var claims: AccessTokenClaims
}

/// How a request presented its access token. A token bound to a key (`cnf`) is accepted only
/// with a proof of that key: as a bearer token it is refused everywhere.
public enum TokenPresentation: Sendable, Hashable {
    /// `Authorization: Bearer` (or RFC 6750's form member).
    case bearer
    /// Not presented but asked about (RFC 7662 introspection): the binding is reported for the
    /// resource server that holds the proof to check, not checked here.
    case inspected
}

/// What a resource needs of an access token beyond its signature and live session: whose tokens
/// it serves and the scopes each must carry. The server's routes and ``AccessTokenMiddleware``
/// (module AuthMiddleware) check these with the same code.
public struct AccessRequirement: Sendable, Hashable {
    /// Which `client_id`s are served.
    public enum Clients: Sendable, Hashable {
        /// Every client of the app.
        case any
        /// Only the app's own App Services sessions (`client_id` = the app).
        case appSessions
        /// Only these `client_id`s.
        case only(Set<String>)
    }

    public var clients: Clients
    /// Every one of these must be in the token's `scope`.
    public var scopes: Set<String>

    public init(clients: Clients = .any, scopes: Set<String> = []) {
        self.clients = clients
        self.scopes = scopes
    }

    /// The App Services routes: an App Services session's own tokens only.
    public static let appSession = AccessRequirement(clients: .appSessions)

    /// The checks on the verified claims that need no store: the key binding, the client, the
    /// scopes, in that order.
    /// - Parameter app: the app the token's verified `aud` names.
    /// - Throws: ``AccessRefusal``.
    public func check(_ claims: AccessTokenClaims, app: String, presentedAs presentation: TokenPresentation) throws(AccessRefusal) {
        switch (presentation, claims.keyThumbprint) {
        case (.bearer, nil), (.inspected, _): break
        case (.bearer, _?): throw AccessRefusal(.keyBound, "the access token is bound to a key; send it with a proof of that key, not as a bearer token")
        }
        switch clients {
        case .any: break
        case .appSessions where claims.clientID != app:
            throw AccessRefusal(.wrongClient, "this access token was issued to an OpenID Connect client, not to an App Services session")
        case .only(let allowed) where !allowed.contains(claims.clientID):
            throw AccessRefusal(.wrongClient, "this access token was issued to a client this resource does not serve")
        case .appSessions, .only: break
        }
        let granted = Set((claims.scope ?? "").split(separator: " ").map(String.init))
        guard scopes.isSubset(of: granted) else {
            throw AccessRefusal(
                .insufficientScope, "the access token was not granted the \(scopes.subtracting(granted).sorted().joined(separator: " ")) scope",
                requiredScopes: scopes)
        }
    }
}

/// Why an access token was refused, with a readable description (RFC 6749's character set:
/// safe in a `WWW-Authenticate` parameter and a JSON string). Every front door answers it in its
/// own shape: App Services 401 `InvalidSession`, RFC 6750 `invalid_token` / `insufficient_scope`.
public struct AccessRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// Malformed, badly signed, expired, not ours, or a claim is missing or wrong.
        case invalidToken
        /// Its session ended, or its user is gone, disabled or of another app.
        case sessionEnded
        /// Issued to a client the resource does not serve.
        case wrongClient
        /// A scope the resource requires is missing (RFC 6750 `insufficient_scope`).
        case insufficientScope
        /// Bound to a key and presented without a proof of it.
        case keyBound
    }

    public var reason: Reason
    public var description: String
    /// The scopes the resource requires, for ``Reason/insufficientScope``.
    public var requiredScopes: Set<String>
    /// The underlying code: the verifier's for ``Reason/invalidToken``, else one per reason.
    public var code: TokenError.Code

    init(_ reason: Reason, _ description: String, requiredScopes: Set<String> = [], code: TokenError.Code? = nil) {
        self.reason = reason
        self.description = description
        self.requiredScopes = requiredScopes
        self.code =
            code
            ?? {
                switch reason {
                case .invalidToken, .keyBound, .insufficientScope: .invalidClaim
                case .sessionEnded: .sessionRevoked
                case .wrongClient: .unauthorizedClient
                }
            }()
    }

    /// As a `TokenError` of ``code`` (introspection's inactive reason).
    public var tokenError: TokenError { TokenError(code, description) }
}

extension SessionService {
    /// The one check of an access token at a resource: its signature and RFC 9068 claims against
    /// this store's keys and `audiences`, then ``AccessRequirement/check(_:app:presentedAs:)``,
    /// then, in one read of the store, that its session is live and its user present, enabled and
    /// of the token's app. Every resource route of the server, introspection and logout use it.
    /// - Parameter singleSpace: the store keeps a library's one space of users (``AppSessionPolicy/app``
    ///   empty): a user of app `""` is then of every audience. A server's users are each of one app,
    ///   and a user of `""` is of none there.
    /// - Throws: ``AccessRefusal`` for a token refused; `store_unavailable`; configuration errors.
    public func checkAccess(
        _ token: String, audiences: Set<String>, requirement: AccessRequirement = AccessRequirement(),
        presentedAs presentation: TokenPresentation = .bearer, singleSpace: Bool = false
    ) async throws -> ResourceAccess {
        let claims: AccessTokenClaims
        do {
            claims = try await verifyAccessToken(token, audiences: audiences, checkSession: false)
        } catch let e as TokenError where e.code.rejectsToken {
            throw AccessRefusal(.invalidToken, "the access token is not valid: \(e.code.rawValue)", code: e.code)
        }
        // The verifier accepted one of `audiences`: the first of them the token names is its app.
        guard let app = claims.audience.first(where: audiences.contains) else {
            throw AccessRefusal(.invalidToken, "the access token is not one this server issued")
        }
        try requirement.check(claims, app: app, presentedAs: presentation)
        guard let sid = claims.sessionID else { throw AccessRefusal(.sessionEnded, "the access token has no session") }
        // The live check, against the store on every request (never cached): two reads.
        let now = configuration.now, subject = claims.subject
        let live = try await store.read { tx in
            guard let session = try await tx.session(id: sid, forUpdate: false), session.isLive(at: now), session.userID == subject,
                let user = try await tx.user(id: subject)
            else { return false }
            return user.disabledAt == nil && (user.app == app || (singleSpace && user.app.isEmpty))
        }
        guard live else {
            throw AccessRefusal(.sessionEnded, "the session of this access token has ended, or its user is gone or disabled")
        }
        return ResourceAccess(
            app: app, userID: subject, sessionID: sid, clientID: claims.clientID,
            scopes: (claims.scope ?? "").split(separator: " ").map(String.init), amr: claims.amr ?? [], acr: claims.acr,
            keyThumbprint: claims.keyThumbprint, claims: claims)
    }
}
