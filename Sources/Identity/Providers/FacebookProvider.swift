public import Foundation
public import JOSE

/// Facebook Login: classic access tokens (checked with the Graph API) and Limited Login
/// id_tokens (OIDC, checked with Facebook's JWKS).
///
/// Access tokens: `GET /debug_token` with the app access token (`app_id|app_secret`) must say
/// `is_valid: true`, `app_id` equal to ours (else `foreign_app`: a token minted for another app
/// must never sign anyone into ours), `expires_at` in the future (0 means no expiry), and give a
/// `user_id`. Then `GET /me?fields=id,name,email,picture` with `appsecret_proof` (hex
/// HMAC-SHA256 of the token keyed with the app secret) fetches the profile; its `id` must be that user.
///
/// ```swift
/// let facebook = try FacebookProvider(configuration: .init(appID: "1234", appSecret: secret), transport: transport)
/// let identity = try await facebook.verify(accessToken: token)
/// ```
public struct FacebookProvider: Sendable {
    public struct Configuration: Sendable {
        public var appID: String
        public var appSecret: String
        /// Graph API base, optionally with a version: `https://graph.facebook.com/v21.0`.
        public var graphURL = "https://graph.facebook.com"
        public var fields = "id,name,email,picture"
        /// Facebook returns only confirmed emails, but does not say so per user; set this to
        /// report them as verified.
        public var treatEmailAsVerified = false
        public var limitedLoginJWKSURL = "https://limited.facebook.com/.well-known/oauth/openid/jwks/"
        public var limitedLoginIssuers: Set<String> = ["https://www.facebook.com", "https://limited.facebook.com"]
        public var leeway: TimeInterval = 0
        public var clock: TokenClock = .system
        public var timeout: TimeInterval = 5

        public init(appID: String, appSecret: String) {
            self.appID = appID
            self.appSecret = appSecret
        }
    }

    public let configuration: Configuration
    private let transport: any HTTPTransport
    private let limitedLoginKeys: KeySource

    /// - Throws: `invalid_configuration` (empty app id or secret, non-https URLs).
    public init(configuration: Configuration, limitedLoginKeys: KeySource? = nil, transport: any HTTPTransport) throws {
        guard !configuration.appID.isEmpty, !configuration.appSecret.isEmpty else {
            throw TokenError(.invalidConfiguration, "Facebook needs the app id and the app secret")
        }
        try ProviderURL.validate(configuration.graphURL, what: "Graph API URL")
        self.configuration = configuration
        self.transport = transport
        self.limitedLoginKeys = try .given(
            limitedLoginKeys, orJWKS: configuration.limitedLoginJWKSURL, transport: transport, clock: configuration.clock,
            timeout: configuration.timeout)
    }

    /// Verifies a Facebook user access token and fetches the profile.
    /// - Throws: `invalid_token`, `foreign_app`, `expired`, `invalid_client` (our app token refused),
    ///   `provider_error`, `provider_unavailable` (also for a response that is not JSON, too large, or
    ///   with `expires_at` that is not a number), `invalid_claim`.
    public func verify(accessToken: String) async throws -> Identity {
        guard !accessToken.isEmpty, accessToken.utf8.count <= 4096 else {
            throw TokenError(.invalidToken, "the access token is empty or longer than 4096 bytes")
        }
        let debug = try await get(
            path: "/debug_token",
            query: [
                ("input_token", accessToken),
                ("access_token", "\(configuration.appID)|\(configuration.appSecret)"),
            ],
            what: "Graph debug_token", userTokenCall: false)
        guard let data = debug["data"]?.objectValue else {
            throw TokenError(.providerUnavailable, "Graph debug_token answered without a \"data\" object")
        }
        guard data["is_valid"]?.boolValue == true else {
            let reason = data["error"]?.objectValue?["message"]?.stringValue.map { ": " + shown($0) } ?? ""
            throw TokenError(.invalidToken, "Facebook says the access token is not valid\(reason)")
        }
        let appID: String? = data["app_id"]?.stringValue ?? data["app_id"]?.intValue.map(String.init)
        guard let appID, ConstantTime.equals(Array(appID.utf8), Array(configuration.appID.utf8)) else {
            throw TokenError(
                .foreignApp,
                "the access token was issued to app \(appID.map { "\"\(shown($0, 32))\"" } ?? "(none)"), not to \"\(configuration.appID)\"",
                claim: "app_id")
        }
        // Fail closed: an expiry that is not a number is not "no expiry".
        if let e = data["expires_at"], e != .null, e.numberValue == nil {
            throw TokenError(.providerUnavailable, "Graph debug_token sent \"expires_at\" as a \(e.typeName); expected a number")
        }
        if let expires = data["expires_at"]?.numberValue, expires > 0,
            configuration.clock.now().timeIntervalSince1970 >= expires + max(0, configuration.leeway)
        {
            throw TokenError(.expired, "access token expired at \(UTCTime.format(expires))", claim: "expires_at")
        }
        let userID: String? = data["user_id"]?.stringValue ?? data["user_id"]?.intValue.map(String.init)
        guard let userID, !userID.isEmpty else {
            throw TokenError(.invalidToken, "debug_token names no user (is this an app or page token?)", claim: "user_id")
        }

        let proof = Hex.encode(try HMAC.sha256(key: Array(configuration.appSecret.utf8), data: Array(accessToken.utf8)))
        var me = try await get(
            path: "/me", query: [("fields", configuration.fields), ("access_token", accessToken), ("appsecret_proof", proof)],
            what: "Graph /me", userTokenCall: true)
        let id: String? = me["id"]?.stringValue ?? me["id"]?.intValue.map(String.init)
        guard id == userID else {
            throw TokenError(
                .invalidToken,
                "Graph /me returned user \(id.map { "\"\(shown($0, 32))\"" } ?? "(none)"), not the token's user \"\(shown(userID, 32))\"")
        }
        var values: [IdentityField: JSONValue] = [.subject: .string(userID)]
        values[.email] = me["email"]
        values[.name] = me["name"]
        values[.givenName] = me["first_name"]
        values[.familyName] = me["last_name"]
        values[.locale] = me["locale"]
        if let picture = me["picture"] {
            // Graph: {"picture":{"data":{"url":"https://…","is_silhouette":false,…}}}
            guard let url = picture.objectValue?["data"]?.objectValue?["url"] else {
                throw TokenError(.invalidClaim, "Graph \"picture\" is not {\"data\":{\"url\":…}}", claim: "picture")
            }
            values[.picture] = url
        }
        if configuration.treatEmailAsVerified, me["email"] != nil { values[.emailVerified] = .bool(true) }
        me["debug_token"] = .object(data)
        return try Identity.normalized(
            provider: "facebook", values: values,
            claimNames: [.subject: "user_id", .givenName: "first_name", .familyName: "last_name", .picture: "picture.data.url"],
            rawClaims: me)
    }

    /// Verifies a Limited Login id_token (OIDC): RS256 with Facebook's JWKS, `iss`, `aud` = app id,
    /// `exp`/`iat`/`sub`, and the nonce when one is expected.
    /// - Throws: JOSE's token codes, `invalid_nonce`, `provider_unavailable`, `invalid_claim`.
    public func verify(limitedLoginToken token: String, nonce: String? = nil) async throws -> Identity {
        let check = OIDCCheck(
            keys: limitedLoginKeys, issuers: configuration.limitedLoginIssuers, audiences: [configuration.appID],
            leeway: configuration.leeway, clock: configuration.clock)
        let claims = try await check.verify(token, nonce: nonce)
        var values = IdentityField.oidcValues(claims.object)
        values[.emailVerified] = nil
        if configuration.treatEmailAsVerified, claims["email"] != nil { values[.emailVerified] = .bool(true) }
        return try Identity.normalized(provider: "facebook", values: values, claimNames: IdentityField.oidcNames, rawClaims: claims.object)
    }

    /// Graph text for a message: printable, bounded, and without the app secret even when Graph
    /// echoes our request (whose query holds the app token `app_id|app_secret`).
    func shown(_ text: String, _ limit: Int = 160) -> String {
        ProviderHTTP.sanitized(text, redacting: [configuration.appSecret], limit: limit)
    }

    func get(path: String, query: [(String, String)], what: String, userTokenCall: Bool) async throws -> JSONObject {
        let url = ProviderHTTP.url(configuration.graphURL, path: path, query: query)
        let response = try await transport.send(
            HTTPRequest(
                url: url, headers: [("Accept", "application/json")],
                timeout: configuration.timeout, maxResponseBytes: 256 * 1024))
        if response.status >= 500 || response.status == 429 {
            throw TokenError(.providerUnavailable, "\(what) answered HTTP \(response.status)")
        }
        let body = try ProviderHTTP.jsonObject(response, from: what)
        // A Graph error is an error whatever the status (a 200 with {"error":…} is no answer).
        if response.status == 200, body["error"] == nil { return body }
        // Graph errors: {"error":{"message":…,"type":"OAuthException","code":190,…}}
        guard let error = body["error"]?.objectValue else {
            throw TokenError(.providerUnavailable, "\(what) answered HTTP \(response.status) without a Graph error")
        }
        let code = error["code"]?.intValue ?? 0
        let message = error["message"]?.stringValue.map { shown($0) } ?? "no message"
        switch code {
        case 190 where userTokenCall, 102 where userTokenCall:
            throw TokenError(.invalidToken, "\(what): Facebook refused the access token (code \(code): \(message))")
        case 190, 101:
            throw TokenError(.invalidClient, "\(what): Facebook refused the app credentials (code \(code): \(message))")
        case 100 where userTokenCall && message.lowercased().contains("appsecret_proof"):
            throw TokenError(.invalidClient, "\(what): Facebook refused the appsecret_proof; is the app secret right? (\(message))")
        case 1, 2, 4, 17, 32, 341, 613:
            throw TokenError(.providerUnavailable, "\(what): Facebook is unavailable or rate-limiting (code \(code): \(message))")
        default:
            throw TokenError(.providerError, "\(what) answered HTTP \(response.status), Graph error \(code): \(message)")
        }
    }
}
