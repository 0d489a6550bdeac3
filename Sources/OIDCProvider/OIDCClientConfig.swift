public import JOSE

/// A `clients` entry with `redirect_uris`: an OpenID Connect relying party (docs/oidc.md,
/// "Configuring a client"). Entries without `redirect_uris` stay ``ServerConfig/ClientConfig``s
/// of the introspection and revocation endpoints.
public struct OIDCClientConfig: Sendable {
    /// How the client authenticates at the token endpoint (RFC 7591 §2, OIDC Core §9).
    public enum AuthMethod: String, Sendable, Hashable, CaseIterable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        /// A public client: no secret, PKCE S256 required.
        case none
    }

    /// The scopes the server knows, in the order discovery lists them; also a client's default `scopes`.
    public static let knownScopes = ["openid", "profile", "email", "offline_access"]
    /// The algorithms an id_token may be signed with (`id_token_signed_response_alg`).
    public static let idTokenAlgorithms: [JWSAlgorithm] = [.rs256, .es256]
    /// Bounds on a client's redirect URIs: how many, and how long each.
    public static let maxRedirectURIs = 32
    public static let maxRedirectURILength = 2000

    /// The client id (`client_id`): the member name under `clients`.
    public var id: String
    /// The app whose users sign in, with its providers, token lifetimes and refresh settings.
    public var app: String
    /// What the consent page shows; default the client id.
    public var name: String
    /// `nil` for a public client.
    public var secret: [UInt8]?
    /// Compared exactly, but for a loopback host's port (``OIDCRedirectURI/matches(registered:requested:)``).
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// No consent page.
    public var firstParty: Bool
    /// What the client may be granted: a subset of ``knownScopes``, in the configured order.
    public var scopes: [String]
    /// The method of its first place: the pinned one, else `none` for a public client and
    /// `client_secret_basic` for a secret one.
    public var authMethod: AuthMethod
    /// The methods it may authenticate with: the `token_endpoint_auth_method` it pins, else
    /// `none` for a public client and both secret methods for a secret one (`client_secret_basic`
    /// and `client_secret_post`, whichever its library sends).
    public var authMethods: [AuthMethod]
    /// RS256 (the default) or ES256.
    public var idTokenAlgorithm: JWSAlgorithm
    /// `true` when an authorization request must carry an S256 `code_challenge`: always for a
    /// public client, and for a confidential one with `require_pkce`.
    public var requirePKCE: Bool

    /// A public client has no secret (RFC 6749 §2.1).
    public var isPublic: Bool { secret == nil }

    public init(
        id: String, app: String, name: String? = nil, secret: [UInt8]?, redirectURIs: [String], postLogoutRedirectURIs: [String] = [],
        firstParty: Bool = false, scopes: [String] = OIDCClientConfig.knownScopes, authMethod: AuthMethod? = nil,
        idTokenAlgorithm: JWSAlgorithm = .rs256, requirePKCE: Bool = false
    ) {
        self.id = id
        self.app = app
        self.name = name ?? id
        self.secret = secret
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.firstParty = firstParty
        self.scopes = scopes
        self.authMethods = authMethod.map { [$0] } ?? (secret == nil ? [.none] : [.clientSecretBasic, .clientSecretPost])
        self.authMethod = self.authMethods[0]
        self.idTokenAlgorithm = idTokenAlgorithm
        self.requirePKCE = requirePKCE || secret == nil
    }
}
