import JOSE

/// Rows as the stores keep them. Times are Unix seconds; hashes and ids are base64url text.
///
/// These are the store protocol's vocabulary: drivers read and write them, ``SessionManager``
/// decides what they mean. Nothing here is a secret: refresh tokens appear only as SHA-256
/// hashes, and a successor token only sealed under a key derived from its predecessor.

/// A user: an id, the app it belongs to, and when it was disabled. Applications keep their own
/// profile data elsewhere.
public struct UserRecord: Sendable, Hashable {
    public var id: String
    public var createdAt: Int64
    /// When the user was disabled (no sign-in, no refresh); `nil` while enabled.
    public var disabledAt: Int64?
    /// The app the user signed up in (``SessionConfiguration/app``): its identities, account, API
    /// keys, tokens and sessions are that app's alone. Empty for a library's single space of
    /// users, and for rows written before schema step 9 until a server adopts them.
    public var app: String

    public init(id: String, createdAt: Int64, disabledAt: Int64? = nil, app: String = "") {
        self.id = id
        self.createdAt = createdAt
        self.disabledAt = disabledAt
        self.app = app
    }
}

/// One identity (app, provider, issuer, subject) of a user, unique across users.
public struct IdentityRecord: Sendable, Hashable {
    /// The app of the identity's user: the same provider subject in two apps is two identities.
    public var app: String
    public var provider: String
    /// A custom provider's verified issuer; empty for the built-in providers.
    public var issuer: String
    public var subject: String
    public var userID: String
    public var email: String?
    public var emailVerified: Bool
    /// The normalized identity as JSON, when it came from a verified sign-in.
    public var profileJSON: String?
    public var createdAt: Int64
    /// A provider token kept for later (Apple's refresh token, to revoke at deletion), sealed
    /// under the master key; `nil` when there is none.
    public var sealedProviderToken: String?

    public init(
        provider: String, issuer: String = "", subject: String, userID: String, email: String? = nil, emailVerified: Bool = false,
        profileJSON: String? = nil, createdAt: Int64, sealedProviderToken: String? = nil, app: String = ""
    ) {
        self.app = app
        self.provider = provider
        self.issuer = issuer
        self.subject = subject
        self.userID = userID
        self.email = email
        self.emailVerified = emailVerified
        self.profileJSON = profileJSON
        self.createdAt = createdAt
        self.sealedProviderToken = sealedProviderToken
    }
}

/// A session: one sign-in on one device, with its chain of refresh tokens. Its id is the access token's `sid` claim (the session id).
public struct SessionRecord: Sendable, Hashable {
    public var id: String
    public var userID: String
    public var clientID: String
    public var createdAt: Int64
    /// Absolute end of the session, whatever its use.
    public var expiresAt: Int64
    /// End of the session if it is not used again; moved forward by each rotation, never past ``expiresAt``.
    public var idleExpiresAt: Int64
    public var lastUsedAt: Int64
    public var revokedAt: Int64?
    /// `logout`, `reuse`, `user`, … — why the session was revoked.
    public var revokeReason: String?
    /// The client's device details as JSON (`{"deviceId","platform",…}`), when it sent any.
    public var device: String?
    /// The API key whose login opened the session: it ends when that key is disabled or deleted.
    public var apiKeyID: String?
    /// An OpenID Connect sign-in's session: how it was signed in (schema step 13); `nil` for others.
    public var signIn: SessionSignIn?

    public init(
        id: String, userID: String, clientID: String, createdAt: Int64, expiresAt: Int64, idleExpiresAt: Int64,
        lastUsedAt: Int64, revokedAt: Int64? = nil, revokeReason: String? = nil, device: String? = nil, apiKeyID: String? = nil,
        signIn: SessionSignIn? = nil
    ) {
        self.apiKeyID = apiKeyID
        self.signIn = signIn
        self.id = id
        self.userID = userID
        self.clientID = clientID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.idleExpiresAt = idleExpiresAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.revokeReason = revokeReason
        self.device = device
    }

    /// `true` when the session is neither revoked nor past either lifetime at `now`.
    public func isLive(at now: Int64) -> Bool {
        revokedAt == nil && now < expiresAt && now < idleExpiresAt
    }

    /// The device id of ``device`` (`deviceId`, when it is 24 hex digits): the access tokens'
    /// `baas_device_id`.
    public var deviceID: String? {
        guard let device, let id = try? JSONValue(parsing: device).objectValue?["deviceId"]?.stringValue, ObjectID(hex: id) != nil else {
            return nil
        }
        return id.lowercased()
    }
}

/// How and when a session's user signed in (the `sessions` columns `op_session`, `auth_time`,
/// `amr` and `scope`): access tokens (and an OpenID Connect sign-in's ID tokens) repeat `amr` and
/// its `acr`, a refresh keeps them (a refresh is not a sign-in), and ending the OP session ends
/// the session. Sessions from before these columns have none.
public struct SessionSignIn: Sendable, Hashable {
    /// The OP browser session it was issued through (the ID tokens' `sid`); `nil` for an App
    /// Services login.
    public var opSessionID: String?
    /// When the user signed in (Unix seconds): with every step of it, second factor included.
    public var authTime: Int64
    /// RFC 8176 methods of that sign-in.
    public var amr: [String]
    /// The scopes granted (the access tokens' `scope`); empty for an App Services login.
    public var scopes: [String]

    /// `acr` of a sign-in whose `amr` holds `mfa`.
    public static let acrMFA = "urn:tokentool:acr:mfa"
    /// `acr` of a sign-in with one factor (a password, a passkey without user verification, an
    /// upstream provider).
    public static let acrPassword = "urn:tokentool:acr:pwd"

    /// `acr` for an `amr`: MFA when `mfa` is among the methods, else one factor.
    public static func acr(amr: [String]) -> String { amr.contains("mfa") ? acrMFA : acrPassword }

    /// This sign-in's `acr`.
    public var acr: String { Self.acr(amr: amr) }

    public init(opSessionID: String?, authTime: Int64, amr: [String], scopes: [String]) {
        self.opSessionID = opSessionID
        self.authTime = authTime
        self.amr = amr
        self.scopes = scopes
    }

    /// The columns as stored: `amr` and `scope` space-separated (`scope` `nil` without an OP session).
    public var columns: (opSession: String?, authTime: Int64, amr: String, scope: String?) {
        (opSessionID, authTime, amr.joined(separator: " "), opSessionID == nil ? nil : scopes.joined(separator: " "))
    }

    /// The sign-in of stored columns; `nil` unless `auth_time` is set.
    public init?(opSession: String?, authTime: Int64?, amr: String?, scope: String?) {
        guard let authTime else { return nil }
        func words(_ s: String?) -> [String] { (s ?? "").split(separator: " ").map(String.init) }
        self.init(opSessionID: opSession, authTime: authTime, amr: words(amr), scopes: words(scope))
    }
}

/// One refresh token, known only by its SHA-256 hash.
public struct RefreshTokenRecord: Sendable, Hashable {
    /// base64url(SHA-256(token)).
    public var hash: String
    public var sessionID: String
    /// The hash of the token this one replaced; `nil` for the first token of a session.
    public var parentHash: String?
    public var createdAt: Int64
    /// When the token was rotated (spent); `nil` while it is the session's current token.
    public var usedAt: Int64?
    /// The hash of the token issued when this one was spent.
    public var successorHash: String?
    /// The successor token sealed with AES-256-GCM under a key derived from this token
    /// (base64url), so that only a client presenting this token again can recover it, and
    /// only while the grace interval lasts.
    public var sealedSuccessor: String?

    public init(
        hash: String, sessionID: String, parentHash: String? = nil, createdAt: Int64, usedAt: Int64? = nil,
        successorHash: String? = nil, sealedSuccessor: String? = nil
    ) {
        self.hash = hash
        self.sessionID = sessionID
        self.parentHash = parentHash
        self.createdAt = createdAt
        self.usedAt = usedAt
        self.successorHash = successorHash
        self.sealedSuccessor = sealedSuccessor
    }
}

/// A signing key of the key ring.
public struct SigningKeyRecord: Sendable, Hashable {
    public var keyID: String
    /// The JWS algorithm, e.g. `ES256`.
    public var algorithm: String
    /// The public JWK as JSON (published in the JWKS).
    public var publicJWK: String
    /// The private JWK as JSON, or, when ``sealed``, base64url(AES-256-GCM box) under the master key.
    public var privateJWK: String
    public var sealed: Bool
    public var createdAt: Int64
    /// When the key stopped signing; `nil` for the active key.
    public var retiredAt: Int64?
    /// A retired key stays in the JWKS until this time (its last token's expiry).
    public var publishUntil: Int64?
    /// The longest access-token lifetime this key signed with (seconds): its retirement window.
    /// `nil` for keys made before it was recorded.
    public var accessTokenLifetime: Int64?
    /// When the key was revoked (compromised): out of the JWKS at once, its tokens refused.
    public var revokedAt: Int64?
    /// A key of another algorithm beside the active one (an OpenID Provider's RS256 key for ID
    /// tokens): published, never signing access tokens, retired with the active key. Stored as a
    /// key neither active nor retired.
    public var companion: Bool

    public init(
        keyID: String, algorithm: String, publicJWK: String, privateJWK: String, sealed: Bool, createdAt: Int64,
        retiredAt: Int64? = nil, publishUntil: Int64? = nil, accessTokenLifetime: Int64? = nil, revokedAt: Int64? = nil,
        companion: Bool = false
    ) {
        self.companion = companion
        self.keyID = keyID
        self.algorithm = algorithm
        self.publicJWK = publicJWK
        self.privateJWK = privateJWK
        self.sealed = sealed
        self.createdAt = createdAt
        self.retiredAt = retiredAt
        self.publishUntil = publishUntil
        self.accessTokenLifetime = accessTokenLifetime
        self.revokedAt = revokedAt
    }

    /// `true` for the key that signs new access tokens.
    public var isActive: Bool { retiredAt == nil && !companion }

    /// `true` while the key belongs in the published JWKS.
    public func isPublished(at now: Int64) -> Bool {
        revokedAt == nil && (retiredAt == nil || (publishUntil ?? 0) > now)
    }
}

/// What ``SessionStoreTransaction/purge(now:)`` removed.
public struct PurgeCounts: Sendable, Hashable {
    public var sessions: Int
    public var refreshTokens: Int
    public var signingKeys: Int
    /// Spent refresh tokens whose sealed successor was erased (past the grace interval).
    public var spentSuccessors: Int

    public init(sessions: Int, refreshTokens: Int, signingKeys: Int, spentSuccessors: Int = 0) {
        self.sessions = sessions
        self.refreshTokens = refreshTokens
        self.signingKeys = signingKeys
        self.spentSuccessors = spentSuccessors
    }
}

/// An API key of a user, known only by its SHA-256 hash.
public struct APIKeyRecord: Sendable, Hashable {
    /// A BSON ObjectId's 24 lower-case hex digits (``ObjectID``), as the Realm SDKs parse it.
    public var id: String
    public var userID: String
    /// Unique per user.
    public var name: String
    /// base64url(SHA-256(key)).
    public var hash: String
    public var disabled: Bool
    public var createdAt: Int64

    public init(id: String, userID: String, name: String, hash: String, disabled: Bool, createdAt: Int64) {
        self.id = id
        self.userID = userID
        self.name = name
        self.hash = hash
        self.disabled = disabled
        self.createdAt = createdAt
    }
}
