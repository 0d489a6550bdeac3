import Foundation
public import JOSE

/// What every app of one store shares: the issuer, the signing keys' algorithm and master key, the
/// clock, the leeway, and how long published keys are kept. A ``SessionService`` holds it.
///
/// ```swift
/// var shared = SessionServiceConfiguration(issuer: "https://auth.example.com")
/// shared.masterKey = masterKey
/// let service = SessionService(store: store, configuration: shared)
/// ```
public struct SessionServiceConfiguration: Sendable {
    /// `iss` of access tokens.
    public var issuer: String
    /// The algorithm of new signing keys: ES256 (default), ES384, ES512, EdDSA, RS256, PS256.
    public var signingAlgorithm: JWSAlgorithm = .es256
    /// Algorithms of the companion keys made beside the active key (``KeyRing/companionKey(algorithm:)``):
    /// published with it, rotated and retired with it, never signing access tokens. An OpenID
    /// Provider has `[.rs256]` (OpenID Connect's mandatory algorithm for ID tokens). Default none.
    public var companionAlgorithms: [JWSAlgorithm] = []
    /// A 32-byte operator key; when set, private signing keys are sealed with AES-256-GCM at rest.
    public var masterKey: [UInt8]? = nil
    /// Clock skew tolerated when verifying access tokens, and added to how long a retired key stays published.
    public var leeway: Int64 = 60
    /// Where "now" comes from.
    public var clock: TokenClock = .system
    /// Seconds an access-token verifier reuses the published keys it read from the store (with
    /// its cache of verified tokens) before reading them again, and the published JWKS document
    /// (``KeyRing/publishedJWKSDocument()``, by ``clock``) is kept. A rotation or revocation in this
    /// process takes effect at once; one in another process (`tokentool keys revoke`, a second
    /// server) within this time. Default 1 second; 0 reads the keys for every verification.
    public var publishedKeysCacheSeconds: Double = 1
    /// The longest access-token lifetime of the store's apps, in seconds: recorded with a new
    /// signing key, and how long a retired key whose tokens' lifetime was never recorded stays
    /// published. Each app that signs with a key raises the key's record to its own lifetime.
    /// Default 30 minutes.
    public var longestAccessTokenLifetime: Int64 = 30 * 60

    public init(issuer: String) {
        self.issuer = issuer
    }

    /// - Throws: `invalid_configuration` for an empty issuer, a negative leeway, a non-positive
    ///   access-token lifetime, a master key that is not 32 bytes, or a symmetric algorithm.
    public func validate() throws {
        func bad(_ m: String) -> TokenError { TokenError(.invalidConfiguration, m) }
        guard !issuer.isEmpty else { throw bad("issuer must not be empty") }
        guard longestAccessTokenLifetime > 0 else {
            throw bad("access token lifetime must be positive, got \(longestAccessTokenLifetime)s")
        }
        guard leeway >= 0 else { throw bad("leeway must not be negative") }
        if let masterKey, masterKey.count != 32 { throw bad("master key must be 32 bytes, got \(masterKey.count)") }
        guard [.es256, .es384, .es512, .edDSA, .rs256, .rs384, .rs512, .ps256, .ps384, .ps512].contains(signingAlgorithm) else {
            throw bad("signing algorithm must be asymmetric (a published JWKS cannot hold a secret), got \(signingAlgorithm.rawValue)")
        }
    }

    var now: Int64 { Int64(clock.now().timeIntervalSince1970.rounded(.down)) }
}

/// What belongs to one app of a store: the audience and client id of its tokens, the users it
/// serves, its lifetimes and its reuse grace. A ``SessionManager`` is a ``SessionService`` with one
/// policy.
///
/// ```swift
/// var policy = AppSessionPolicy(audience: "myapp", defaultClientID: "myapp")
/// policy.app = "myapp"
/// policy.reuseGraceInterval = 30
/// let sessions = SessionManager(service: service, policy: policy)
/// ```
public struct AppSessionPolicy: Sendable {
    /// `aud` of access tokens (the resource server).
    public var audience: String
    /// `client_id` written to access tokens when the caller names none.
    public var defaultClientID: String
    /// The app whose users this policy serves: users, identities, email/password accounts, API
    /// keys and account tokens of another app are neither found nor accepted (docs/security.md,
    /// "Apps are separate"). Default empty: one space of users, as a library or the CLI keeps.
    public var app: String = ""
    /// Seconds an access token lives (RFC 9068 `exp - iat`). Default 30 minutes.
    public var accessTokenLifetime: Int64 = 30 * 60
    /// Seconds a refresh-token session lives at most, from sign-in. Default 60 days.
    public var refreshAbsoluteLifetime: Int64 = 60 * 86_400
    /// Seconds a session may go unused before it dies. Default 14 days.
    public var refreshIdleLifetime: Int64 = 14 * 86_400
    /// Seconds after a rotation during which presenting the just-spent token again returns
    /// the same successor instead of revoking the session. Default 10 seconds; 0 disables it.
    /// The store-wide sweep keeps successors for the largest grace of the apps it serves
    /// (``SessionService/sweep(grace:)``).
    public var reuseGraceInterval: Int64 = 10

    public init(audience: String, defaultClientID: String = "tokentool") {
        self.audience = audience
        self.defaultClientID = defaultClientID
    }

    /// - Throws: `invalid_configuration` for an empty audience or client id, non-positive
    ///   lifetimes, an idle lifetime above the absolute one, or a grace interval outside 0…300 s.
    public func validate() throws {
        func bad(_ m: String) -> TokenError { TokenError(.invalidConfiguration, m) }
        guard !audience.isEmpty, !defaultClientID.isEmpty else { throw bad("audience and client id must not be empty") }
        guard accessTokenLifetime > 0 else { throw bad("access token lifetime must be positive, got \(accessTokenLifetime)s") }
        guard refreshAbsoluteLifetime > 0, refreshIdleLifetime > 0 else { throw bad("refresh lifetimes must be positive") }
        guard refreshIdleLifetime <= refreshAbsoluteLifetime else {
            throw bad("refresh idle lifetime (\(refreshIdleLifetime)s) exceeds the absolute lifetime (\(refreshAbsoluteLifetime)s)")
        }
        guard reuseGraceInterval >= 0, reuseGraceInterval <= 300 else {
            throw bad("reuse grace interval must be 0…300 seconds, got \(reuseGraceInterval)")
        }
    }
}
