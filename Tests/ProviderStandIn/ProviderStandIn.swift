import Foundation
public import JOSE

/// A stand-in for Google, Apple and Facebook on 127.0.0.1, speaking each provider's real HTTP
/// protocol: JWKS with Cache-Control and ETag (Google `/oauth2/v3/certs`, Apple `/auth/keys`,
/// Facebook Limited Login `/.well-known/oauth/openid/jwks/`, a custom issuer's
/// `/.well-known/jwks.json`), Google's token endpoint (`/token`), Apple's token and revoke
/// endpoints (`/auth/token`, `/auth/revoke`), Graph's `/debug_token` and `/me` (with or without
/// a `/vNN.N` prefix). It signs tokens with its own test keys and can be told to fail, stall,
/// rotate keys or send garbage.
///
/// `GET /_standin/token/{google|apple|facebook|custom}?name=value…` mints an id_token with
/// default claims overridden by the query (for docs and manual runs).
public final class ProviderStandIn: @unchecked Sendable {
    /// What an endpoint does instead of its normal answer.
    public enum Behavior: Sendable, Equatable {
        case normal
        /// Answer with this status and a small JSON error body.
        case fail(status: Int)
        /// Never answer.
        case stall
        /// Answer 200 with a body that is not JSON.
        case garbage
        /// Answer 200 with a JSON body of about this many bytes.
        case oversized(bytes: Int)
        /// Answer 200 with JSON that is not a JWKS (`{"keys":"none"}`).
        case malformedJWKS
        /// Answer with this status and these body bytes (as `application/json`): hostile responses.
        case body(status: Int, bytes: [UInt8])
        /// Answer with this redirect status and `Location` (redirect policy tests).
        case redirect(status: Int, location: String)
    }

    public struct Settings: Sendable {
        public var googleClientID = "standin-client.apps.googleusercontent.com"
        public var googleClientSecret = "standin-google-secret"
        public var appleClientID = "com.example.standin"
        /// The Services ID of Apple's web sign-in (`web_client_id`), also accepted by the token endpoint.
        public var appleWebClientID = "com.example.standin.web"
        public var appleTeamID = "STANDINTM1"
        public var appleKeyID = "STANDINKY1"
        public var facebookAppID = "1000000000000001"
        public var facebookAppSecret = "standin-facebook-app-secret"
        public var customIssuer = "https://issuer.standin.test"
        public var customAudience = "standin-api"
        /// `Cache-Control: max-age` on JWKS responses.
        public var jwksMaxAge = 3600
        public var clock: TokenClock = .system
        public init() {}
    }

    /// A Facebook user access token the stand-in Graph API knows.
    public struct FacebookUser: Sendable {
        public var accessToken: String
        public var userID: String
        public var appID: String
        public var name: String?
        public var email: String?
        public var pictureURL: String?
        /// Unix seconds; 0: never expires.
        public var expiresAt: Int64
        public var isValid: Bool
        public init(
            accessToken: String, userID: String, appID: String, name: String? = nil, email: String? = nil,
            pictureURL: String? = nil, expiresAt: Int64 = 0, isValid: Bool = true
        ) {
            self.accessToken = accessToken
            self.userID = userID
            self.appID = appID
            self.name = name
            self.email = email
            self.pictureURL = pictureURL
            self.expiresAt = expiresAt
            self.isValid = isValid
        }
    }

    private struct Code {
        var claims: ClaimSet
        var redirectURI: String?
        var singleUse: Bool
        /// The PKCE S256 challenge the code was issued with: the token request must prove it.
        var challenge: String? = nil
    }

    public let settings: Settings
    /// The Sign in with Apple private key (P-256) clients sign their client secret with.
    public let appleClientSecretKey: JWK
    /// The browser side of the providers (authorization pages, Facebook's dialog, Graph's code exchange).
    public let web = WebFlowState()
    private var server: HTTPServer?
    let lock = NSLock()
    private var signingKeys: [JWK]
    private var generation = 1
    private var behaviors: [String: Behavior] = [:]
    private var defaultBehavior: Behavior = .normal
    private var googleCodes: [String: Code] = [:]
    private var appleCodes: [String: Code] = [:]
    var facebookUsers: [String: FacebookUser] = [:]
    private var revoked: [String] = []
    private var log: [StandInRequest] = []

    /// Starts the stand-in on 127.0.0.1 (`port` 0: a free port).
    public static func start(port: Int = 0, settings: Settings = Settings()) async throws -> ProviderStandIn {
        let standIn = try ProviderStandIn(settings: settings)
        standIn.server = try await HTTPServer(port: port) { [standIn] request in standIn.respond(request) }
        return standIn
    }

    private init(settings: Settings) throws {
        self.settings = settings
        var key = try JWK.generateRSA(bits: 2048)
        key.keyID = "standin-1"
        key.algorithm = "RS256"
        key.use = "sig"
        signingKeys = [key]
        appleClientSecretKey = try JWK.generate(curve: .p256)
        registerDefaults()
    }

    public func shutdown() async throws { try await server?.shutdown() }

    /// The public half of ``appleClientSecretKey``, with the key id Apple knows it by.
    public var appleVerificationKey: JWK {
        var k = appleClientSecretKey.publicKey
        k.keyID = settings.appleKeyID
        return k
    }

    public var port: Int { server?.port ?? 0 }
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var googleJWKSURL: String { baseURL + "/oauth2/v3/certs" }
    public var googleTokenURL: String { baseURL + "/token" }
    public var appleJWKSURL: String { baseURL + "/auth/keys" }
    public var appleTokenURL: String { baseURL + "/auth/token" }
    public var appleRevokeURL: String { baseURL + "/auth/revoke" }
    public var graphURL: String { baseURL + "/v21.0" }
    public var facebookJWKSURL: String { baseURL + "/.well-known/oauth/openid/jwks/" }
    public var customJWKSURL: String { baseURL + "/.well-known/jwks.json" }

    // MARK: control

    /// Sets what `path` (e.g. "/oauth2/v3/certs"), or every path when `nil`, does.
    public func setBehavior(_ behavior: Behavior, for path: String? = nil) {
        lock.withLock {
            if let path { behaviors[path] = behavior } else { defaultBehavior = behavior; behaviors = [:] }
        }
    }

    /// Replaces the signing key with a new one (new kid); the JWKS then publishes only the new key,
    /// unless `keepOld`.
    @discardableResult
    public func rotateKeys(keepOld: Bool = false) throws -> String {
        var key = try JWK.generateRSA(bits: 2048)
        return lock.withLock {
            generation += 1
            key.keyID = "standin-\(generation)"
            key.algorithm = "RS256"
            key.use = "sig"
            signingKeys = keepOld ? [key] + signingKeys : [key]
            return key.keyID!
        }
    }

    public var currentKeyID: String { lock.withLock { signingKeys[0].keyID! } }

    /// Requests seen, oldest first.
    public var requests: [StandInRequest] { lock.withLock { log } }
    public func requestCount(path: String) -> Int { lock.withLock { log.filter { $0.path == path }.count } }
    public func resetLog() { lock.withLock { log = [] } }
    /// Tokens posted to Apple's revoke endpoint.
    public var revokedTokens: [String] { lock.withLock { revoked } }

    /// The public JWKS as served.
    public var jwksJSON: String { lock.withLock { (try? JWKSet(keys: signingKeys).jsonString()) ?? "{}" } }

    // MARK: tokens

    /// Signs `claims` with the current key (or a throwaway key with `keyID` when that kid is unknown,
    /// to produce tokens for keys the JWKS does not publish).
    public func sign(_ claims: ClaimSet, keyID: String? = nil) throws -> String {
        let key: JWK = try lock.withLock {
            if let keyID {
                if let k = signingKeys.first(where: { $0.keyID == keyID }) { return k }
                var k = try JWK.generateRSA(bits: 2048)
                k.keyID = keyID
                return k
            }
            return signingKeys[0]
        }
        return try JWTSigner(key: key, algorithm: .rs256).sign(claims)
    }

    var now: Int64 { Int64(settings.clock.now().timeIntervalSince1970) }

    /// Default id_token claims for a provider (`google`, `apple`, `facebook`, `custom`), valid for an hour.
    public func defaultClaims(_ provider: String) -> ClaimSet {
        let t = now
        switch provider {
        case "google":
            return [
                "iss": "https://accounts.google.com", "azp": .string(settings.googleClientID), "aud": .string(settings.googleClientID),
                "sub": "110000000000000000001", "email": "standin.user@gmail.com", "email_verified": true,
                "name": "Stand In", "given_name": "Stand", "family_name": "In",
                "picture": "https://lh3.googleusercontent.com/a/standin", "locale": "en", "iat": .int(t), "exp": .int(t + 3600),
            ]
        case "apple":
            return [
                "iss": "https://appleid.apple.com", "aud": .string(settings.appleClientID), "sub": "001234.standin0123456789abcdef.0042",
                "email": "standin@privaterelay.appleid.com", "email_verified": "true", "is_private_email": "true",
                "real_user_status": 2, "auth_time": .int(t), "nonce_supported": true, "iat": .int(t), "exp": .int(t + 3600),
            ]
        case "facebook":
            return [
                "iss": "https://www.facebook.com", "aud": .string(settings.facebookAppID), "sub": "10000000000000042",
                "name": "Stand In", "given_name": "Stand", "family_name": "In", "email": "standin@example.com",
                "picture": "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10000000000000042",
                "jti": "standin-jti", "iat": .int(t), "exp": .int(t + 3600),
            ]
        default:
            return [
                "iss": .string(settings.customIssuer), "aud": .string(settings.customAudience), "sub": "user-42",
                "user_data": .object(["name": "Stand In", "email": "standin@example.com", "verified": true]),
                "iat": .int(t), "exp": .int(t + 3600),
            ]
        }
    }

    /// An id_token with the provider's default claims, `overrides` applied (`.null` removes a claim).
    public func idToken(_ provider: String, _ overrides: ClaimSet = ClaimSet(), keyID: String? = nil) throws -> String {
        var claims = defaultClaims(provider)
        for (k, v) in overrides.object {
            // JSONValue is ExpressibleByNilLiteral, so a bare `nil` here would store JSON null.
            claims.object[k] = v == .null ? JSONValue?.none : v
        }
        return try sign(claims, keyID: keyID)
    }

    /// Makes Google's token endpoint accept `code` and return an id_token with these claims.
    public func registerGoogleCode(
        _ code: String, claims: ClaimSet? = nil, redirectURI: String? = nil, singleUse: Bool = true, codeChallenge: String? = nil
    ) {
        lock.withLock {
            googleCodes[code] = Code(claims: claims ?? ClaimSet(), redirectURI: redirectURI, singleUse: singleUse, challenge: codeChallenge)
        }
    }

    /// Makes Apple's token endpoint accept `code`.
    public func registerAppleCode(_ code: String, claims: ClaimSet? = nil, singleUse: Bool = true, redirectURI: String? = nil) {
        lock.withLock { appleCodes[code] = Code(claims: claims ?? ClaimSet(), redirectURI: redirectURI, singleUse: singleUse) }
    }
    public func registerFacebookUser(_ user: FacebookUser) { lock.withLock { facebookUsers[user.accessToken] = user } }

    private func registerDefaults() {
        googleCodes["standin-google-code"] = Code(claims: ClaimSet(), redirectURI: nil, singleUse: false)
        appleCodes["standin-apple-code"] = Code(claims: ClaimSet(), redirectURI: nil, singleUse: false)
        facebookUsers["standin-facebook-user-token"] = FacebookUser(
            accessToken: "standin-facebook-user-token", userID: "10000000000000042", appID: settings.facebookAppID,
            name: "Stand In", email: "standin@example.com",
            pictureURL: "https://platform-lookaside.fbsbx.com/platform/profilepic/?asid=10000000000000042")
        facebookUsers["standin-foreign-app-token"] = FacebookUser(
            accessToken: "standin-foreign-app-token", userID: "10000000000000043", appID: "2000000000000002", name: "Someone Else")
    }

    // MARK: routing

    func respond(_ request: StandInRequest) -> StandInResponse? {
        var path = request.path
        // Graph accepts an optional version prefix: /v21.0/me
        if path.hasPrefix("/v"), let slash = path.dropFirst().firstIndex(of: "/") {
            let version = path[path.index(path.startIndex, offsetBy: 2)..<slash]
            if !version.isEmpty, version.allSatisfy({ $0.isNumber || $0 == "." }) { path = String(path[slash...]) }
        }
        let behavior: Behavior = lock.withLock {
            log.append(request)
            return behaviors[request.path] ?? behaviors[path] ?? defaultBehavior
        }
        if path.hasPrefix("/_standin/") { return mint(path, request) }
        if behavior == .normal, let answer = webFlow(request, path: path) { return answer }
        switch behavior {
        case .normal: break
        case .fail(let status): return .json(#"{"error":"server_error","error_description":"stand-in failure"}"#, status: status)
        case .stall: return nil
        case .garbage: return StandInResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array("<html>\u{0}garbage".utf8))
        case .oversized(let n): return .json("{\"keys\":[],\"pad\":\"" + String(repeating: "x", count: max(0, n)) + "\"}")
        case .malformedJWKS: return .json(#"{"keys":"none"}"#, headers: [("Cache-Control", "max-age=3600")])
        case .body(let status, let bytes): return StandInResponse(status: status, headers: [("Content-Type", "application/json")], body: bytes)
        case .redirect(let status, let location): return StandInResponse(status: status, headers: [("Location", location)])
        }
        switch (request.method, path) {
        case ("GET", "/oauth2/v3/certs"), ("GET", "/auth/keys"), ("GET", "/.well-known/oauth/openid/jwks/"), ("GET", "/.well-known/jwks.json"):
            return jwks(request)
        case ("POST", "/token"): return googleToken(request)
        case ("POST", "/auth/token"): return appleToken(request)
        case ("POST", "/auth/revoke"): return appleRevoke(request)
        case ("GET", "/debug_token"): return debugToken(request)
        case ("GET", "/me"): return me(request)
        default: return .json(#"{"error":"not_found"}"#, status: 404)
        }
    }

    private func jwks(_ request: StandInRequest) -> StandInResponse {
        let (body, etag) = lock.withLock { ((try? JWKSet(keys: signingKeys).jsonString()) ?? "{}", "\"standin-v\(generation)\"") }
        let headers = [("Cache-Control", "public, max-age=\(settings.jwksMaxAge), must-revalidate, no-transform"), ("ETag", etag)]
        if request.header("if-none-match") == etag { return StandInResponse(status: 304, headers: headers) }
        return .json(body, headers: headers)
    }

    private func oauthError(_ error: String, status: Int = 400) -> StandInResponse {
        .json("{\"error\":\"\(error)\",\"error_description\":\"Bad Request\"}", status: status)
    }

    private func takeCode(_ code: String?, from table: ReferenceWritableKeyPath<ProviderStandIn, [String: Code]>) -> Code? {
        guard let code else { return nil }
        return lock.withLock {
            guard let c = self[keyPath: table][code] else { return nil }
            if c.singleUse { self[keyPath: table][code] = nil }
            return c
        }
    }

    private func googleToken(_ request: StandInRequest) -> StandInResponse {
        let form = request.form
        guard form["grant_type"] == "authorization_code" else { return oauthError("unsupported_grant_type") }
        guard form["client_id"] == settings.googleClientID, form["client_secret"] == settings.googleClientSecret else {
            return .json(#"{"error":"invalid_client","error_description":"Unauthorized"}"#, status: 401)
        }
        guard let code = takeCode(form["code"], from: \.googleCodes) else { return oauthError("invalid_grant") }
        if let expected = code.redirectURI, form["redirect_uri"] != expected { return oauthError("redirect_uri_mismatch") }
        if let challenge = code.challenge {
            // RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must be the challenge.
            guard let verifier = form["code_verifier"], Base64URL.encode(SHA2.sha256(Array(verifier.utf8))) == challenge else {
                return oauthError("invalid_grant")
            }
        }
        guard let idToken = try? idToken("google", code.claims) else { return oauthError("server_error", status: 500) }
        return .json(
            JSONValue.object([
                "access_token": "ya29.standin-access", "expires_in": 3599, "scope": "openid email profile",
                "token_type": "Bearer", "id_token": .string(idToken),
            ]).jsonString)
    }

    /// Apple's client authentication: an ES256 JWT signed with the registered key.
    private func appleClientOK(_ form: [String: String]) -> Bool {
        guard let client = form["client_id"], [settings.appleClientID, settings.appleWebClientID].contains(client),
            let secret = form["client_secret"],
            let verifier = try? JWTVerifier(
                key: appleVerificationKey,
                options: VerifierOptions(
                    issuers: [settings.appleTeamID], audiences: ["https://appleid.apple.com"],
                    requiredClaims: ["iat", "exp", "sub"], algorithms: [.es256], clock: settings.clock)),
            let token = try? verifier.verify(secret), token.header.keyID == settings.appleKeyID,
            token.claims.subject == client,
            let iat = token.claims.issuedAt, let exp = token.claims.expiresAt, exp.timeIntervalSince(iat) <= 15_777_000
        else { return false }
        return true
    }

    private func appleToken(_ request: StandInRequest) -> StandInResponse {
        let form = request.form
        guard appleClientOK(form) else { return .json(#"{"error":"invalid_client"}"#, status: 400) }
        guard form["grant_type"] == "authorization_code" else { return .json(#"{"error":"unsupported_grant_type"}"#, status: 400) }
        guard let code = takeCode(form["code"], from: \.appleCodes) else { return .json(#"{"error":"invalid_grant"}"#, status: 400) }
        if let expected = code.redirectURI, form["redirect_uri"] != expected { return .json(#"{"error":"invalid_grant"}"#, status: 400) }
        guard let idToken = try? idToken("apple", code.claims) else { return .json(#"{"error":"server_error"}"#, status: 500) }
        return .json(
            JSONValue.object([
                "access_token": "a.standin-apple-access", "token_type": "Bearer", "expires_in": 3600,
                "refresh_token": "r.standin-apple-refresh", "id_token": .string(idToken),
            ]).jsonString)
    }

    private func appleRevoke(_ request: StandInRequest) -> StandInResponse {
        let form = request.form
        guard appleClientOK(form) else { return .json(#"{"error":"invalid_client"}"#, status: 400) }
        guard let token = form["token"], !token.isEmpty else { return .json(#"{"error":"invalid_request"}"#, status: 400) }
        lock.withLock { revoked.append(token) }
        return StandInResponse(status: 200)
    }

    /// `GET /_standin/token/{provider}?claim=value…`: values parse as JSON when they can.
    private func mint(_ path: String, _ request: StandInRequest) -> StandInResponse {
        let provider = String(path.dropFirst("/_standin/token/".count))
        guard path.hasPrefix("/_standin/token/"), ["google", "apple", "facebook", "custom"].contains(provider) else {
            return .json(#"{"error":"not_found"}"#, status: 404)
        }
        var overrides = ClaimSet()
        for (k, v) in request.query where k != "kid" {
            overrides[k] = (try? JSONValue(parsing: v)) ?? .string(v)
        }
        guard let token = try? idToken(provider, overrides, keyID: request.query["kid"]) else { return .json(#"{"error":"sign"}"#, status: 500) }
        return StandInResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array((token + "\n").utf8))
    }
}
