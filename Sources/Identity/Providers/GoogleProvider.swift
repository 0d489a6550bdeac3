public import Foundation
public import JOSE

/// Sign in with Google: id_tokens from the mobile SDKs, and server auth codes exchanged at
/// Google's token endpoint.
///
/// Checks: RS256 signature with a key from Google's JWKS; `iss` is `accounts.google.com` or
/// `https://accounts.google.com`; `aud` is one of ``Configuration/clientIDs``; `exp`, `iat`, `sub`
/// present and valid; `hd` equal to ``Configuration/hostedDomain`` when one is set; `nonce` when
/// one is expected (as Apple's); with several audiences, `azp` present and one of the client ids
/// (OpenID Connect Core §3.1.3.7). `azp` is kept in the raw claims.
///
/// ```swift
/// let google = try GoogleProvider(configuration: .init(clientIDs: ["123.apps.googleusercontent.com"]), transport: transport)
/// let identity = try await google.verify(idToken: idToken)
/// ```
public struct GoogleProvider: Sendable {
    public struct Configuration: Sendable {
        /// OAuth client ids whose tokens are accepted (iOS, Android, web: all the app's clients).
        public var clientIDs: Set<String>
        /// Require this Google Workspace domain in `hd`.
        public var hostedDomain: String?
        /// Needed only for server auth codes.
        public var clientSecret: String?
        public var jwksURL = "https://www.googleapis.com/oauth2/v3/certs"
        public var tokenURL = "https://oauth2.googleapis.com/token"
        public var issuers: Set<String> = ["accounts.google.com", "https://accounts.google.com"]
        public var leeway: TimeInterval = 0
        public var clock: TokenClock = .system
        public var timeout: TimeInterval = 5

        public init(clientIDs: Set<String>, hostedDomain: String? = nil, clientSecret: String? = nil) {
            self.clientIDs = clientIDs
            self.hostedDomain = hostedDomain
            self.clientSecret = clientSecret
        }
    }

    public let configuration: Configuration
    private let keys: KeySource
    private let transport: any HTTPTransport

    /// - Parameter keys: defaults to a ``RemoteJWKS`` at ``Configuration/jwksURL``.
    /// - Throws: `invalid_configuration` (no client id, non-https URL).
    public init(configuration: Configuration, keys: KeySource? = nil, transport: any HTTPTransport) throws {
        try checkClientIDs(configuration.clientIDs, what: "Google client id")
        try ProviderURL.validate(configuration.tokenURL, what: "Google token URL")
        self.configuration = configuration
        self.transport = transport
        self.keys = try .given(keys, orJWKS: configuration.jwksURL, transport: transport, clock: configuration.clock, timeout: configuration.timeout)
    }

    /// Verifies a Google id_token.
    /// - Parameter nonce: the nonce the app sent with this sign-in; `nil` skips the check.
    /// - Throws: JOSE's token codes, `invalid_nonce`, `invalid_audience` (claim `azp`: a token for
    ///   several audiences authorized by a party that is not one of our clients), `invalid_hosted_domain`,
    ///   `provider_unavailable`, `invalid_claim` for bad profile fields.
    public func verify(idToken: String, nonce: String? = nil) async throws -> Identity {
        let check = OIDCCheck(
            keys: keys, issuers: configuration.issuers, audiences: configuration.clientIDs,
            leeway: configuration.leeway, clock: configuration.clock)
        let claims = try await check.verify(idToken, nonce: nonce)
        if case .array(let audiences)? = claims["aud"], audiences.count > 1 {
            guard let azp = claims["azp"]?.stringValue else {
                throw TokenError(.invalidAudience, "token has several audiences and no \"azp\"", claim: "azp")
            }
            guard configuration.clientIDs.contains(azp) else {
                throw TokenError(.invalidAudience, "token was authorized by \"\(azp.prefix(64))\", not one of our client ids", claim: "azp")
            }
        }
        if let domain = configuration.hostedDomain {
            guard let hd = claims["hd"]?.stringValue else {
                throw TokenError(.invalidHostedDomain, "token has no \"hd\"; expected hosted domain \"\(domain)\"", claim: "hd")
            }
            guard hd.lowercased() == domain.lowercased() else {
                throw TokenError(.invalidHostedDomain, "hosted domain \"\(hd.prefix(64))\" is not \"\(domain)\"", claim: "hd")
            }
        }
        return try Identity.normalized(
            provider: "google", values: IdentityField.oidcValues(claims.object),
            claimNames: IdentityField.oidcNames, rawClaims: claims.object)
    }

    /// Exchanges a server auth code at the token endpoint, then verifies the id_token it returns.
    /// - Parameter redirectURI: the one the client used, if any (sent only when given).
    /// - Throws: as ``exchange(code:clientID:redirectURI:nonce:codeVerifier:)``.
    public func exchange(code: String, clientID: String? = nil, redirectURI: String? = nil, nonce: String? = nil) async throws -> CodeExchangeResult {
        try await exchange(code: code, clientID: clientID, redirectURI: redirectURI, nonce: nonce, codeVerifier: nil)
    }

    /// Exchanges the code of a web sign-in at the token endpoint, then verifies the id_token it returns.
    /// - Parameter redirectURI: the one the authorization request used, if any (sent only when given).
    /// - Parameter codeVerifier: the PKCE verifier of the authorization request (RFC 7636 §4.5),
    ///   when it sent a challenge (sent only when given).
    /// - Throws: `invalid_grant`, `redirect_uri_mismatch`, `invalid_client`, `provider_error` (an OAuth error
    ///   body sent with HTTP 200 maps the same way), `provider_unavailable` (a response that is not JSON,
    ///   too large, without an id_token or with members of the wrong type), `invalid_configuration`
    ///   (no client secret), and the id_token codes.
    public func exchange(code: String, clientID: String?, redirectURI: String?, nonce: String?, codeVerifier: String?) async throws
        -> CodeExchangeResult
    {
        guard let secret = configuration.clientSecret else {
            throw TokenError(.invalidConfiguration, "exchanging a Google server auth code needs the client secret")
        }
        guard let clientID = clientID ?? (configuration.clientIDs.count == 1 ? configuration.clientIDs.first : nil) else {
            throw TokenError(.invalidConfiguration, "several Google client ids are configured; say which one the code belongs to")
        }
        var fields = [("code", code), ("client_id", clientID), ("client_secret", secret), ("grant_type", "authorization_code")]
        if let redirectURI { fields.append(("redirect_uri", redirectURI)) }
        if let codeVerifier { fields.append(("code_verifier", codeVerifier)) }
        let response = try await ProviderHTTP.postForm(transport, url: configuration.tokenURL, fields: fields, timeout: configuration.timeout)
        let body = try TokenResponse(
            response, from: "Google token endpoint", secrets: [secret],
            noIDToken: "Google token endpoint returned no id_token (was the openid scope granted?)")
        let identity = try await verify(idToken: body.idToken, nonce: nonce)
        return CodeExchangeResult(
            identity: identity, idToken: body.idToken, accessToken: body.accessToken,
            refreshToken: body.refreshToken, expiresIn: body.expiresIn, scope: body.scope)
    }
}
