public import JOSE

/// An access token and its refresh token, as handed to a client once.
public struct TokenPair: Sendable, Hashable {
    /// A JWT (RFC 9068 profile).
    public var accessToken: String
    /// 256 random bits, base64url. Stored only as its SHA-256 hash: this is the only copy.
    public var refreshToken: String
    /// Seconds until the access token expires.
    public var expiresIn: Int64
    public var userID: String
    /// The client (app) the session belongs to: the access token's `client_id`.
    public var clientID: String
    /// The session id: the access token's `sid`.
    public var sessionID: String

    /// `"Bearer"` (RFC 6750).
    public var tokenType: String { "Bearer" }

    /// The token response shape: `{"access_token","refresh_token","token_type","expires_in","user_id"}`.
    public var jsonObject: JSONObject {
        [
            "access_token": .string(accessToken), "refresh_token": .string(refreshToken), "token_type": .string(tokenType),
            "expires_in": .int(expiresIn), "user_id": .string(userID),
        ]
    }
}

/// The claims of an access token (RFC 9068 §2.2), as issued and as verified.
public struct AccessTokenClaims: Sendable, Hashable, Codable {
    public var issuer: String
    public var subject: String
    public var audience: [String]
    public var expiresAt: Int64
    public var issuedAt: Int64
    public var jwtID: String
    public var clientID: String
    /// The session id.
    public var sessionID: String?
    /// `baas_device_id`: the session's device id (24 hex digits), when the client's sign-in
    /// named or was given one; Realm clients read it as the user's device.
    public var deviceID: String?
    /// RFC 9068 §2.2.3 `scope`: the scopes granted to an OpenID Connect client, space-separated;
    /// `nil` for App Services sessions.
    public var scope: String?
    /// RFC 8176 `amr` of the session's sign-in; `nil` for a session from before sessions kept it.
    public var amr: [String]?
    /// `acr` of the session's sign-in (``SessionSignIn/acr``), beside ``amr``.
    public var acr: String?
    /// RFC 9449 §6.1 `cnf.jkt`: the thumbprint of the key the token is bound to; `nil` for a
    /// bearer token. A token with a `cnf` is never accepted as a bearer token.
    public var keyThumbprint: String?

    public init(
        issuer: String, subject: String, audience: [String], expiresAt: Int64, issuedAt: Int64, jwtID: String,
        clientID: String, sessionID: String?, deviceID: String? = nil, scope: String? = nil, amr: [String]? = nil, acr: String? = nil
    ) {
        self.scope = scope
        self.amr = amr
        self.acr = acr
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.jwtID = jwtID
        self.clientID = clientID
        self.sessionID = sessionID
        self.deviceID = deviceID
    }

    /// Reads the claims of an access token whose signature and RFC 9068 checks have passed.
    /// - Throws: `missing_claim` / `invalid_claim` when a claim is absent or of the wrong type.
    public init(_ claims: ClaimSet) throws {
        func string(_ name: String) throws -> String {
            guard let s = claims[name]?.stringValue, !s.isEmpty else {
                throw TokenError(claims[name] == nil ? .missingClaim : .invalidClaim, "access token needs a string \"\(name)\"", claim: name)
            }
            return s
        }
        func int(_ name: String) throws -> Int64 {
            guard let v = claims[name]?.numberValue, v.isFinite else {
                throw TokenError(claims[name] == nil ? .missingClaim : .invalidClaim, "access token needs a numeric \"\(name)\"", claim: name)
            }
            return Int64(v.rounded(.down))
        }
        issuer = try string("iss")
        subject = try string("sub")
        audience = claims.audience
        expiresAt = try int("exp")
        issuedAt = try int("iat")
        jwtID = try string("jti")
        clientID = try string("client_id")
        sessionID = claims["sid"]?.stringValue
        deviceID = claims["baas_device_id"]?.stringValue
        scope = claims["scope"]?.stringValue
        amr = claims["amr"]?.arrayValue.map { $0.compactMap(\.stringValue) }
        acr = claims["acr"]?.stringValue
        if let cnf = claims["cnf"] {
            // A confirmation this code cannot read still binds the token: refuse it, never drop it.
            guard let jkt = cnf.objectValue?["jkt"]?.stringValue, !jkt.isEmpty else {
                throw TokenError(.invalidClaim, "access token's \"cnf\" needs a string \"jkt\"", claim: "cnf")
            }
            keyThumbprint = jkt
        }
    }

    var claimSet: ClaimSet {
        var c = ClaimSet()
        c["iss"] = .string(issuer)
        c["sub"] = .string(subject)
        c.audience = audience
        c["exp"] = .int(expiresAt)
        c["iat"] = .int(issuedAt)
        c["jti"] = .string(jwtID)
        c["client_id"] = .string(clientID)
        if let sessionID { c["sid"] = .string(sessionID) }
        if let deviceID { c["baas_device_id"] = .string(deviceID) }
        if let scope { c["scope"] = .string(scope) }
        if let amr { c["amr"] = .array(amr.map(JSONValue.string)) }
        if let acr { c["acr"] = .string(acr) }
        if let keyThumbprint { c["cnf"] = .object(["jkt": .string(keyThumbprint)]) }
        return c
    }
}
