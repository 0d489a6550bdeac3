import JOSE
import OIDCProvider

/// A client of the OAuth endpoints (RFC 6749 §2), whichever of the three kinds the config makes
/// it. Client authentication (``ClientAuthentication``) proves one; the grants, introspection and
/// revocation read from it what it may do.
struct OAuthClient: Sendable {
    /// The three kinds, in the order discovery lists their authentication methods.
    enum Kind: Sendable, Hashable, CaseIterable {
        /// A `clients` entry with `redirect_uris`: an OpenID Connect relying party of one app.
        case relyingParty
        /// An app id sent as `client_id`: the public client of the App Services SDKs.
        case publicApp
        /// A `clients` entry without `redirect_uris` (a resource server): it introspects and
        /// revokes every app's tokens.
        case service

        /// The authentication methods a client of this kind may have (names of
        /// ``ClientAuthMethods/standard``): a relying party registers one of its list.
        var methods: [String] {
            switch self {
            case .relyingParty: OIDCClientConfig.AuthMethod.allCases.map(\.rawValue)
            case .publicApp: [NoClientAuthentication.name]
            case .service: [ClientSecretBasic.name, ClientSecretPost.name]
            }
        }
    }

    /// Its `client_id`.
    let id: String
    let kind: Kind
    /// The app whose users' tokens it gets: the relying party's, or the public app itself; `nil`
    /// for a service, which serves every app.
    let app: String?
    /// `nil` for a public client.
    let secret: [UInt8]?
    /// The methods it may authenticate with: a relying party's pinned `token_endpoint_auth_method`,
    /// else both secret methods for a secret client (``OIDCClientConfig/authMethods``).
    let authMethods: [String]
    /// A relying party's configuration.
    let relyingParty: OIDCClientConfig?

    /// Whether it may revoke and refresh every app's tokens (a service), or only its own.
    var servesEveryApp: Bool { kind == .service }
}

/// Every client of a config by `client_id`. An id may name two clients, a service and an app (the
/// config keeps relying parties' ids apart from apps'); the method a request authenticates
/// with tells them apart.
struct OAuthClients: Sendable {
    private let byID: [String: [OAuthClient]]
    /// The kinds this server serves: a public app and a service always, a relying party when it
    /// is an OpenID Provider.
    let kinds: [OAuthClient.Kind]

    init(_ config: ServerConfig) {
        var byID: [String: [OAuthClient]] = [:]
        for (id, c) in config.oidcClients {
            byID[id, default: []].append(
                OAuthClient(id: id, kind: .relyingParty, app: c.app, secret: c.secret, authMethods: c.authMethods.map(\.rawValue), relyingParty: c))
        }
        for (id, c) in config.clients {
            byID[id, default: []].append(
                OAuthClient(
                    id: id, kind: .service, app: nil, secret: c.secret, authMethods: [ClientSecretBasic.name, ClientSecretPost.name], relyingParty: nil))
        }
        for id in config.apps.keys {
            byID[id, default: []].append(
                OAuthClient(id: id, kind: .publicApp, app: id, secret: nil, authMethods: [NoClientAuthentication.name], relyingParty: nil))
        }
        self.byID = byID
        kinds = OAuthClient.Kind.allCases.filter { $0 != .relyingParty || !config.oidcClients.isEmpty }
    }

    enum Lookup {
        case found(OAuthClient)
        /// A client of this id exists but authenticates otherwise.
        case otherMethod(OAuthClient)
        case unknown
    }

    /// The client `id` that authenticates with `method`.
    func client(_ id: String, method: String) -> Lookup {
        let named = byID[id] ?? []
        if let client = named.first(where: { $0.authMethods.contains(method) }) { return .found(client) }
        return named.first.map(Lookup.otherMethod) ?? .unknown
    }
}
