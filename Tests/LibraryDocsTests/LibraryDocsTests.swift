import Foundation
import Identity
import JOSE
import ProviderStandIn
import SessionStoreSQLite
import Sessions
import Testing

/// The Swift examples of docs/library.md, verbatim between the markers (DocsTests checks that
/// each block of the page equals one marked region), compiled and run here.
@Suite struct LibraryDocsTests {
    @Test func examplesRunAsWritten() async throws {
        // docs/library.md begin
        struct APIClaims: Decodable, Sendable {
            let sub: String
            let scope: String
        }

        let key = try JWK.generate(curve: .p256)  // in production: the issuer's published JWKS
        let token = try JWTSigner(key: key).sign(["sub": "42", "aud": "api", "scope": "read", "exp": 4102444800])

        let verifier = JWTVerifier(keys: try JWKSet(keys: [key.publicKey]), options: VerifierOptions(audiences: ["api"], leeway: 30))
        let verified = try verifier.verify(token, as: APIClaims.self)
        print(verified.claims.sub, verified.claims.scope)  // 42 read
        // docs/library.md end
        #expect(verified.claims.sub == "42" && verified.claims.scope == "read")

        // docs/library.md begin
        var refusal: TokenError? = nil
        do {
            _ = try JWTVerifier(keys: try JWKSet(keys: [key.publicKey]), options: VerifierOptions(audiences: ["billing"])).verify(token)
        } catch let error as TokenError {
            refusal = error
        }
        if let refusal { print(refusal.code, refusal.code.kind) }  // invalid_audience rejected
        // docs/library.md end
        #expect(refusal?.code == .invalidAudience && refusal?.code.kind == .rejected)

        // docs/library.md begin
        let standIn = try await ProviderStandIn.start()  // a stand-in Google and Apple on 127.0.0.1
        let transport = AsyncHTTPClientTransport()

        var googleConfig = GoogleProvider.Configuration(clientIDs: [standIn.settings.googleClientID])
        googleConfig.jwksURL = standIn.googleJWKSURL  // default: Google's own
        let google = try GoogleProvider(configuration: googleConfig, transport: transport)
        let identity = try await google.verify(idToken: try standIn.idToken("google"))
        print(identity.provider, identity.subject, identity.email ?? "-")  // google 110000000000000000001 standin.user@gmail.com

        var appleConfig = AppleProvider.Configuration(clientIDs: [standIn.settings.appleClientID])
        appleConfig.jwksURL = standIn.appleJWKSURL  // default: Apple's own
        let apple = try AppleProvider(configuration: appleConfig, transport: transport)
        let appleIdentity = try await apple.verify(idToken: try standIn.idToken("apple"))
        print(appleIdentity.provider)  // apple

        try await transport.shutdown()
        try await standIn.shutdown()
        // docs/library.md end
        #expect(identity.provider == "google" && identity.subject == "110000000000000000001")
        #expect(appleIdentity.provider == "apple")

        // docs/library.md begin
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sessions-\(UUID().uuidString).sqlite").path
        let store = try await SQLiteSessionStore.open(path: path)
        let configuration = SessionConfiguration(issuer: "https://auth.example.com", audience: "https://api.example.com")
        let sessions = SessionManager(store: store, configuration: configuration)

        let signIn = try await sessions.signIn(with: identity)  // creates the user on first sign-in
        let next = try await sessions.refresh(signIn.tokens.refreshToken)  // spends it; a second use revokes the session
        let claims = try await sessions.verifyAccessToken(next.accessToken)  // signature, claims, and the session still live
        print(signIn.created, claims.subject == signIn.userID)  // true true

        // An API server without the store verifies with the published keys alone:
        let published = try await sessions.keyRing.jwks()
        let apiVerifier = AccessTokenVerifier(keys: published, issuer: "https://auth.example.com", audience: "https://api.example.com")
        print(try apiVerifier.verify(next.accessToken).subject == signIn.userID)  // true

        _ = try await sessions.revoke(next.refreshToken)  // logout: the whole session
        try await store.close()
        // docs/library.md end
        #expect(signIn.created && claims.subject == signIn.userID)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    // The fragments of the other pages: compiled here (they name their inputs as parameters), not
    // run, since they talk to Google or leave the reader to supply a token.

    func identityPageExample(idTokenFromTheApp: String) async throws {
        // docs/identity.md begin
        let transport = AsyncHTTPClientTransport()
        let google = try GoogleProvider(configuration: .init(clientIDs: ["123-abc.apps.googleusercontent.com"]), transport: transport)
        let identity = try await google.verify(idToken: idTokenFromTheApp)
        print(identity.provider, identity.subject, identity.email ?? "-", identity.emailVerified)
        try await transport.shutdown()
        // docs/identity.md end
    }

    func sessionsPageExample(identity: Identity, presentedRefreshToken: String, userID: String, send: (JSONObject) -> Void) async throws {
        // docs/sessions.md begin
        let store = try await SQLiteSessionStore.open(path: "sessions.sqlite")
        let configuration = SessionConfiguration(issuer: "https://auth.example.com", audience: "https://api.example.com")
        let sessions = SessionManager(store: store, configuration: configuration)

        let signIn = try await sessions.signIn(with: identity)  // finds or creates the user
        send(signIn.tokens.jsonObject)  // refresh token: shown this once
        let next = try await sessions.refresh(presentedRefreshToken)  // rotates
        send(next.jsonObject)
        try await sessions.revoke(next.refreshToken)  // logout: the whole session
        try await sessions.deleteUser(id: userID)  // identities and sessions go too
        // docs/sessions.md end
    }

    func resourceServerExample(fetchedJWKS: String, bearerToken: String, sessions: SessionManager) async throws {
        // docs/sessions.md begin
        let jwks = try JWKSet(json: fetchedJWKS)  // `tokentool keys jwks`, or served by the auth server
        let verifier = AccessTokenVerifier(keys: jwks, issuer: "https://auth.example.com", audience: "https://api.example.com")
        let claims = try verifier.verify(bearerToken)  // signature, typ at+jwt, iss, aud, exp/iat, RFC 9068 claims
        // With the store at hand, also check the session is live:
        let live = try await sessions.verifyAccessToken(bearerToken, checkSession: true)  // session_revoked if not
        // docs/sessions.md end
        _ = (claims, live)
    }

    func oauthSessionsExample(service: SessionService, token: String, appIDs: Set<String>) async throws {
        // docs/sessions.md begin
        // RFC 7009: a refresh or access token ends its session; nil when there was nothing to end.
        try await service.revoke(token, by: .publicClient("myapp-abcde"), audiences: appIDs)
        try await service.revoke(token, by: .authenticated, audiences: appIDs)  // a configured client
        // RFC 7662: refresh tokens of every app, access tokens of the given apps.
        let answer = try await service.introspect(token, audiences: appIDs)
        // docs/sessions.md end
        _ = answer
    }

    func severalAppsExample(
        store: any SessionStore, rotating: Set<String>, presentedRefreshToken: String, send: (JSONObject) -> Void
    ) async throws {
        // docs/sessions.md begin
        let service = SessionService(store: store, configuration: SessionServiceConfiguration(issuer: "https://auth.example.com"))
        let apps = Dictionary(
            uniqueKeysWithValues: ["shop", "blog"].map { id in
                var policy = AppSessionPolicy(audience: id, defaultClientID: id)
                policy.app = id
                return (id, SessionManager(service: service, policy: policy))
            })
        let pair = try await service.refresh(presentedRefreshToken) { clientID in
            apps[clientID].map { RefreshIssuer($0, mode: rotating.contains(clientID) ? .rotate : .keep) }
        }
        send(pair.jsonObject)  // issued by the session's own app, named by pair.clientID
        _ = try await service.sweep(grace: apps.values.map(\.policy.reuseGraceInterval).max() ?? 0)  // hourly
        // docs/sessions.md end
    }

    func storesPageExample() async throws {
        // docs/stores.md begin
        let store: any SessionStore = try await SQLiteSessionStore.open(path: "sessions.sqlite")
        // or: try await PostgresSessionStore.open(url: "postgres://app@127.0.0.1/auth")
        // docs/stores.md end
        try await store.close()
    }
}
