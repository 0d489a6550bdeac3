import Foundation
import AsyncHTTPClient
import Identity
import JOSE
import Testing
@testable import AuthServer
@testable import Sessions
import OIDCProvider

/// What the OpenID Connect token tests share: a server with three relying parties (confidential
/// with HTTP Basic, confidential with `client_secret_post` and ES256 ID tokens, public), users
/// signed in to OP sessions, and authorization codes issued through the store as the hosted
/// login issues them.
enum OIDCTokenFixture {
    static let secret = "portal-secret-0123456789abcdef0123"
    static let apps = #"{ "myapp": { "providers": { "anon-user": {} } } }"#
    static let extra = #"""
        "clients": {
          "portal": { "app": "myapp", "secret_file": "portal.secret", "redirect_uris": ["https://portal.example.com/cb"],
                      "post_logout_redirect_uris": ["https://portal.example.com/bye"], "first_party": true },
          "poster": { "app": "myapp", "secret_file": "portal.secret", "token_endpoint_auth_method": "client_secret_post",
                      "id_token_signed_response_alg": "ES256", "redirect_uris": ["https://poster.example.com/cb"] },
          "spa": { "app": "myapp", "redirect_uris": ["http://127.0.0.1/cb"] },
          "resource-api": { "secret_file": "portal.secret" } },
        """#
    static let files = ["portal.secret": secret + "\n"]
    static let redirects = ["portal": "https://portal.example.com/cb", "poster": "https://poster.example.com/cb", "spa": "http://127.0.0.1:5173/cb"]
    static let verifier = String(repeating: "k", count: 43)

    static func with<T>(_ kind: StoreKind, _ body: (LiveServer) async throws -> T) async throws -> T {
        try await LiveServer.with(kind, apps: apps, extra: extra, files: files, body)
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    static func basic(_ id: String = "portal", _ secret: String = secret) -> (String, String) {
        ("Authorization", "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString())
    }

    /// A user of myapp with a Google identity that vouches for a name, a picture and an email.
    static func user(_ s: LiveServer) async throws -> String {
        let sessions = try #require(s.server.apps["myapp"]).sessions
        let identity = Identity(
            provider: "oauth2-google", subject: UUID().uuidString, email: "ann@example.com", emailVerified: true, name: "Ann Lee",
            givenName: "Ann", familyName: "Lee", picture: "https://pics.example.com/ann.png")
        return try await sessions.signIn(with: identity, clientID: "myapp").userID
    }

    struct IssuedCode {
        var code: String
        /// The OP session's `sid`, and its cookie token.
        var sid: String
        var opToken: String
        /// The id of the session the code's redemption starts.
        var sessionID: String
    }

    /// A code for `user` as the hosted login issues it: an OP session signed in, the request
    /// checked, the code stored for 60 s from `created`.
    static func code(
        _ s: LiveServer, client: String = "portal", user: String, scope: String = "openid profile email", pkce: Bool = false,
        nonce: String? = "n-1", created: Int64? = nil, opToken: String? = nil
    ) async throws -> IssuedCode {
        let time = created ?? now
        var params = [("response_type", "code"), ("client_id", client), ("redirect_uri", redirects[client]!), ("scope", scope), ("state", "st")]
        if let nonce { params.append(("nonce", nonce)) }
        if pkce || client == "spa" { params += [("code_challenge", PKCE.challenge(forVerifier: verifier)), ("code_challenge_method", "S256")] }
        guard
            case .valid(let request) = OIDCAuthorizationRequest.parse(
                params.map { (name: $0.0, value: $0.1) }, clients: s.server.config.oidcClients, issuer: s.server.config.issuer)
        else { throw HarnessError("the authorization request was refused") }
        let (token, op) = try await s.server.store.signInOPSession(app: "myapp", userID: user, amr: ["pwd"], ttl: 3600, current: opToken, at: time)
        let code = try OIDCAuthorizationCode(
            OIDCLoginFlow(request, created: time), userID: user, authTime: time, amr: ["pwd"], opSessionID: op.sessionID, created: time)
        let text = try await s.server.store.transaction { tx in try await tx.issueAuthorizationCode(code, app: "myapp") }
        return IssuedCode(code: text, sid: op.sessionID, opToken: token, sessionID: code.sessionID)
    }

    /// The token request of `code` for `client`, authenticated as its registration says.
    static func exchange(
        _ s: LiveServer, _ code: IssuedCode, client: String = "portal", extra: [(String, String)] = [], verifier: String? = nil
    ) async throws -> LiveServer.Answer {
        var fields = [("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", redirects[client]!)] + extra
        if let verifier = verifier ?? (client == "spa" ? Self.verifier : nil) { fields.append(("code_verifier", verifier)) }
        switch client {
        case "portal": return try await s.form("/oauth/token", fields, headers: [basic()])
        case "poster": return try await s.form("/oauth/token", fields + [("client_id", "poster"), ("client_secret", secret)])
        default: return try await s.form("/oauth/token", fields + [("client_id", client)])
        }
    }

    /// The claims of an ID token verified against the server's published JWKS, as a relying party checks it.
    static func verifyIDToken(_ s: LiveServer, _ token: String, client: String = "portal") async throws -> ClaimSet {
        let jwks = try await s.call(.GET, "/.well-known/jwks.json")
        let options = VerifierOptions(
            issuers: ["http://auth.test"], audiences: [client], requiredClaims: ["iss", "sub", "aud", "exp", "iat", "auth_time", "sid"], type: "JWT")
        return try JWTVerifier(keys: try JWKSet(json: jwks.body), options: options).verify(token).claims
    }

    /// The verified ID token's claims of a hosted page's `303` to the portal client with its code.
    static func idTokenClaims(_ s: LiveServer, _ answer: LiveServer.Answer) async throws -> ClaimSet {
        #expect(answer.status == 303, "\(answer.status) \(answer.body.prefix(300))")
        let code = try #require(OIDCFixture.parameters(answer.header("Location"))["code"])
        let tokens = try await s.form(
            "/oauth/token", [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "https://portal.example.com/cb")],
            headers: [basic()])
        return try await verifyIDToken(s, try #require(tokens["id_token"]))
    }
}

extension OIDCTokenFixture {
    /// A GET that does not follow redirects (a browser's first hop), with `headers`.
    static func getNoRedirect(_ s: LiveServer, _ path: String, headers: [(String, String)] = []) async throws -> LiveServer.Answer {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
        do {
            var request = HTTPClientRequest(url: s.baseURL + path)
            for (n, v) in headers { request.headers.add(name: n, value: v) }
            let response = try await client.execute(request, timeout: .seconds(90))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            return LiveServer.Answer(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: String(buffer: bytes))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
