public import Identity
public import JOSE
import Sessions

/// What the `profile` and `email` scopes reveal of a user (OIDC Core §5.4), where known.
public struct OIDCUserClaims: Sendable, Hashable {
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    /// An https URL.
    public var picture: String?
    public var email: String?
    /// True once the address was confirmed (by mail or `auto_confirm`) or vouched for by the provider.
    public var emailVerified: Bool

    public init(
        name: String? = nil, givenName: String? = nil, familyName: String? = nil, picture: String? = nil, email: String? = nil,
        emailVerified: Bool = false
    ) {
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.picture = picture
        self.email = email
        self.emailVerified = emailVerified
    }

    /// The claims an identity provider vouched for.
    public init(_ identity: Identity) {
        self.init(
            name: identity.name, givenName: identity.givenName, familyName: identity.familyName, picture: identity.picture,
            email: identity.email, emailVerified: identity.emailVerified)
    }
}

/// Everything an ID token says (OIDC Core §2, §3.1.3.6), before it is signed.
public struct IDTokenContent: Sendable {
    /// The issuer: `public_url` exactly as configured.
    public var issuer: String
    /// The user id.
    public var subject: String
    public var clientID: String
    public var issuedAt: Int64
    /// `iat` + the app's `access_token_ttl`.
    public var expiresAt: Int64
    /// When the OP session last signed the user in (a refresh keeps it).
    public var authTime: Int64
    /// The authorization request's `nonce`; `nil` when none was sent, and always on a refresh.
    public var nonce: String?
    /// The access token issued beside the ID token, for `at_hash`.
    public var accessToken: String?
    /// The algorithm the ID token will be signed with (the client's `id_token_signed_response_alg`).
    public var algorithm: JWSAlgorithm
    /// The OP session (`sid`).
    public var sessionID: String
    /// RFC 8176 methods: `pwd`, `otp`, `hwk`, `swk`, `mfa`, `fed`, `user`.
    public var amr: [String]
    /// The granted scopes: `profile` and `email` add their claims.
    public var scopes: [String]
    public var user: OIDCUserClaims

    public init(
        issuer: String, subject: String, clientID: String, issuedAt: Int64, expiresAt: Int64, authTime: Int64, nonce: String?,
        accessToken: String?, algorithm: JWSAlgorithm, sessionID: String, amr: [String], scopes: [String], user: OIDCUserClaims
    ) {
        self.issuer = issuer
        self.subject = subject
        self.clientID = clientID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.authTime = authTime
        self.nonce = nonce
        self.accessToken = accessToken
        self.algorithm = algorithm
        self.sessionID = sessionID
        self.amr = amr
        self.scopes = scopes
        self.user = user
    }
}

/// The claims of ID tokens and userinfo answers.
public enum OIDCClaims {
    /// `acr` of a session signed in with one factor (a password, a passkey without user
    /// verification, an upstream provider).
    public static let acrPassword = SessionSignIn.acrPassword
    /// `acr` of a session whose `amr` holds `mfa`.
    public static let acrMFA = SessionSignIn.acrMFA

    /// Discovery's `claims_supported`: every claim an ID token or userinfo answer may hold.
    public static let supported = [
        "iss", "sub", "aud", "azp", "exp", "iat", "auth_time", "nonce", "at_hash", "sid", "amr", "acr",
        "name", "given_name", "family_name", "picture", "email", "email_verified",
    ]

    /// `acr` for an `amr`: MFA when `mfa` is among the methods, else one factor.
    public static func acr(amr: [String]) -> String { SessionSignIn.acr(amr: amr) }

    /// OIDC Core §3.1.3.6 `at_hash`: base64url of the left half of the hash of the access
    /// token's ASCII octets, with the hash of the ID token's `alg` (SHA-256 for RS256 and ES256,
    /// SHA-384 for the *384 ones, SHA-512 for the *512 ones and EdDSA).
    public static func atHash(accessToken: String, algorithm: JWSAlgorithm) -> String {
        let bytes = Array(accessToken.utf8)
        let digest: [UInt8]
        switch algorithm.hashLength {
        case 32: digest = SHA2.sha256(bytes)
        case 48: digest = SHA2.sha384(bytes)
        default: digest = SHA2.sha512(bytes)
        }
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }

    /// The claims `scopes` reveal (OIDC Core §5.4): `profile` → `name`, `given_name`,
    /// `family_name`, `picture` where known; `email` → `email` and `email_verified` when the
    /// address is known.
    public static func scopeClaims(_ user: OIDCUserClaims, scopes: [String]) -> JSONObject {
        var out = JSONObject()
        if scopes.contains("profile") {
            if let v = user.name { out["name"] = .string(v) }
            if let v = user.givenName { out["given_name"] = .string(v) }
            if let v = user.familyName { out["family_name"] = .string(v) }
            if let v = user.picture { out["picture"] = .string(v) }
        }
        if scopes.contains("email"), let email = user.email {
            out["email"] = .string(email)
            out["email_verified"] = .bool(user.emailVerified)
        }
        return out
    }

    /// The ID token's claims, ready for ``JOSE/JWTSigner/sign(_:header:)`` (with the header's
    /// `alg` as ``IDTokenContent/algorithm``, `kid`, and `typ` `JWT`). `aud` is the client id
    /// alone, as a string (OIDC Core §2 allows it for a single audience); `azp` repeats it.
    public static func idToken(_ c: IDTokenContent) -> ClaimSet {
        var o: JSONObject = [
            "iss": .string(c.issuer), "sub": .string(c.subject), "aud": .string(c.clientID), "azp": .string(c.clientID),
            "exp": .int(c.expiresAt), "iat": .int(c.issuedAt), "auth_time": .int(c.authTime),
        ]
        if let nonce = c.nonce { o["nonce"] = .string(nonce) }
        if let token = c.accessToken { o["at_hash"] = .string(atHash(accessToken: token, algorithm: c.algorithm)) }
        o["sid"] = .string(c.sessionID)
        o["amr"] = .array(c.amr.map(JSONValue.string))
        o["acr"] = .string(acr(amr: c.amr))
        for (name, value) in scopeClaims(c.user, scopes: c.scopes) { o[name] = value }
        return ClaimSet(o)
    }

    /// OIDC Core §5.3.2: the userinfo answer, `sub` and the scopes' claims.
    public static func userinfo(subject: String, user: OIDCUserClaims, scopes: [String]) -> JSONObject {
        var o: JSONObject = ["sub": .string(subject)]
        for (name, value) in scopeClaims(user, scopes: scopes) { o[name] = value }
        return o
    }
}
