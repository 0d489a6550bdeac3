public import Foundation
public import JOSE

/// Sign in with Apple: id_tokens, the authorization-code exchange, and token revocation.
///
/// Checks: RS256 signature with a key from Apple's JWKS; `iss` is `https://appleid.apple.com`;
/// `aud` is one of ``Configuration/clientIDs`` (bundle ids, services ids); `exp`, `iat`, `sub`;
/// `nonce` when one is expected (equal to the raw nonce or to its SHA-256 hex). Apple's
/// `email_verified` and `is_private_email` arrive as booleans or the strings "true"/"false";
/// `real_user_status` and `is_private_email` stay in the raw claims.
///
/// ```swift
/// let apple = try AppleProvider(configuration: .init(clientIDs: ["com.example.app"]), transport: transport)
/// let identity = try await apple.verify(idToken: idToken, nonce: rawNonce)
/// ```
public struct AppleProvider: Sendable {
    /// What the client-secret JWT needs: the team id (`iss`), the Sign in with Apple key id
    /// (`kid`) and that key (ES256, P-256).
    public struct ClientSecretKey: Sendable {
        public var teamID: String
        public var keyID: String
        public var privateKey: JWK
        /// At most six months (15,777,000 s, Apple's limit).
        public var lifetime: TimeInterval

        public init(teamID: String, keyID: String, privateKey: JWK, lifetime: TimeInterval = 3600) {
            self.teamID = teamID
            self.keyID = keyID
            self.privateKey = privateKey
            self.lifetime = lifetime
        }
    }

    public struct Configuration: Sendable {
        public var clientIDs: Set<String>
        public var clientSecretKey: ClientSecretKey?
        public var jwksURL = "https://appleid.apple.com/auth/keys"
        public var tokenURL = "https://appleid.apple.com/auth/token"
        public var revokeURL = "https://appleid.apple.com/auth/revoke"
        public var issuer = "https://appleid.apple.com"
        public var leeway: TimeInterval = 0
        public var clock: TokenClock = .system
        public var timeout: TimeInterval = 5

        public init(clientIDs: Set<String>, clientSecretKey: ClientSecretKey? = nil) {
            self.clientIDs = clientIDs
            self.clientSecretKey = clientSecretKey
        }
    }

    /// Apple's limit on a client secret's life: six months.
    public static let maximumClientSecretLifetime: TimeInterval = 15_777_000

    public let configuration: Configuration
    private let keys: KeySource
    private let transport: any HTTPTransport

    /// - Throws: `invalid_configuration` (no client id, non-https URL, secret lifetime over six months, key not ES256).
    public init(configuration: Configuration, keys: KeySource? = nil, transport: any HTTPTransport) throws {
        try checkClientIDs(configuration.clientIDs, what: "Apple client id (bundle or services id)")
        try ProviderURL.validate(configuration.tokenURL, what: "Apple token URL")
        try ProviderURL.validate(configuration.revokeURL, what: "Apple revoke URL")
        if let k = configuration.clientSecretKey {
            guard k.lifetime > 0, k.lifetime <= Self.maximumClientSecretLifetime else {
                throw TokenError(.invalidConfiguration, "Apple client secrets live at most 15777000 s (six months); \(Int(k.lifetime)) s configured")
            }
            guard k.privateKey.isPrivate, k.privateKey.keyType == .ec, k.privateKey.curve == .p256 else {
                throw TokenError(
                    .invalidConfiguration, "the Sign in with Apple key must be a P-256 private key (ES256); found \(k.privateKey.summary)")
            }
        }
        self.configuration = configuration
        self.transport = transport
        self.keys = try .given(keys, orJWKS: configuration.jwksURL, transport: transport, clock: configuration.clock, timeout: configuration.timeout)
    }

    /// Verifies an Apple id_token.
    /// - Parameter nonce: the raw nonce the app generated for this sign-in; `nil` skips the check.
    /// - Throws: JOSE's token codes, `invalid_nonce`, `provider_unavailable`, `invalid_claim`.
    public func verify(idToken: String, nonce: String? = nil) async throws -> Identity {
        let check = OIDCCheck(
            keys: keys, issuers: [configuration.issuer], audiences: configuration.clientIDs,
            leeway: configuration.leeway, clock: configuration.clock)
        let claims = try await check.verify(idToken, nonce: nonce)
        if let p = claims["is_private_email"], !(p.boolValue != nil || p == .string("true") || p == .string("false")) {
            throw TokenError(.invalidClaim, "\"is_private_email\" is neither a boolean nor \"true\"/\"false\"", claim: "is_private_email")
        }
        if let s = claims["real_user_status"], !(s.intValue.map { (0...2).contains($0) } ?? false) {
            throw TokenError(.invalidClaim, "\"real_user_status\" is not 0, 1 or 2", claim: "real_user_status")
        }
        // Apple never puts the name in the id_token (the app gets it once, on first sign-in).
        var values = IdentityField.oidcValues(claims.object)
        values[.name] = nil
        values[.givenName] = nil
        values[.familyName] = nil
        values[.picture] = nil
        values[.locale] = nil
        return try Identity.normalized(provider: "apple", values: values, claimNames: IdentityField.oidcNames, rawClaims: claims.object)
    }

    /// The ES256 client-secret JWT Apple's token and revoke endpoints want:
    /// header `kid` = key id; `iss` team id, `iat`, `exp` (≤ six months), `aud` https://appleid.apple.com, `sub` client id.
    /// - Throws: `invalid_configuration` without a ``ClientSecretKey``.
    public func clientSecret(clientID: String) throws -> String {
        guard let k = configuration.clientSecretKey else {
            throw TokenError(.invalidConfiguration, "Apple's token and revoke endpoints need a client secret key (team id, key id, private key)")
        }
        let now = configuration.clock.now()
        var claims = ClaimSet()
        claims.issuer = k.teamID
        claims.issuedAt = now
        claims.expiresAt = now.addingTimeInterval(k.lifetime)
        claims.audience = ["https://appleid.apple.com"]
        claims.subject = clientID
        var signer = try JWTSigner(key: k.privateKey, algorithm: .es256, keyID: k.keyID)
        signer.type = nil
        return try signer.sign(claims)
    }

    private func pickClientID(_ clientID: String?) throws -> String {
        guard let id = clientID ?? (configuration.clientIDs.count == 1 ? configuration.clientIDs.first : nil) else {
            throw TokenError(.invalidConfiguration, "several Apple client ids are configured; say which one to use")
        }
        return id
    }

    /// Exchanges an authorization code (valid five minutes, single use) at Apple's token
    /// endpoint and verifies the id_token it returns. Keep the refresh token: revocation needs it.
    /// - Throws: `invalid_grant`, `invalid_client`, `provider_error` (an OAuth error body
    ///   sent with HTTP 200 maps the same way), `provider_unavailable` (a response that is not JSON, too large, without an
    ///   id_token or with members of the wrong type), `invalid_configuration`, and the id_token codes.
    public func exchange(code: String, clientID: String? = nil, redirectURI: String? = nil, nonce: String? = nil) async throws -> CodeExchangeResult {
        let id = try pickClientID(clientID)
        let secret = try clientSecret(clientID: id)
        var fields = [("client_id", id), ("client_secret", secret), ("code", code), ("grant_type", "authorization_code")]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        let response = try await ProviderHTTP.postForm(transport, url: configuration.tokenURL, fields: fields, timeout: configuration.timeout)
        let body = try TokenResponse(
            response, from: "Apple token endpoint", secrets: Self.secretParts(secret),
            noIDToken: "Apple token endpoint returned no id_token")
        let identity = try await verify(idToken: body.idToken, nonce: nonce)
        return CodeExchangeResult(
            identity: identity, idToken: body.idToken, accessToken: body.accessToken,
            refreshToken: body.refreshToken, expiresIn: body.expiresIn, scope: nil)
    }

    /// Revokes a refresh or access token, as an app must when a user who signed in with Apple
    /// deletes their account. Apple answers 200 also for tokens already revoked.
    /// - Parameter tokenTypeHint: `refresh_token` or `access_token`.
    /// - Throws: `invalid_client`, `provider_error`, `provider_unavailable`, `invalid_configuration`.
    public func revoke(token: String, tokenTypeHint: String = "refresh_token", clientID: String? = nil) async throws {
        let id = try pickClientID(clientID)
        let secret = try clientSecret(clientID: id)
        let fields = [("client_id", id), ("client_secret", secret), ("token", token), ("token_type_hint", tokenTypeHint)]
        let response = try await ProviderHTTP.postForm(transport, url: configuration.revokeURL, fields: fields, timeout: configuration.timeout)
        guard response.status == 200 else {
            throw ProviderHTTP.oauthError(response, from: "Apple revoke endpoint", secrets: Self.secretParts(secret))
        }
    }

    /// What of a client-secret JWT an error message must not show: the whole JWT, and its
    /// signature alone (the header and claims are the public team id, key id and client id).
    static func secretParts(_ jwt: String) -> [String] {
        [jwt] + (jwt.split(separator: ".").last.map { [String($0)] } ?? [])
    }
}
