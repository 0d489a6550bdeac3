import AuthMiddleware
import Foundation
import Hummingbird
import Identity
import JOSE
import SessionStoreSQLite
import Sessions
import Testing

/// The middleware in a real Hummingbird app on 127.0.0.1, fetching a real JWKS over HTTP from
/// a second app that publishes a Sessions key ring (plus one test key we sign with by hand).
@Suite("AccessTokenMiddleware over HTTP")
struct MiddlewareTests {
    static let issuer = "https://auth.test"
    static let app = "myapp-abcde"

    /// What a test gets: the protected app's base URL, the sessions that issue real tokens, and a
    /// key the JWKS also publishes (kid `test-key`) for tokens shaped by hand.
    struct Fixture: Sendable {
        var base: String
        var sessions: SessionManager
        var store: any SessionStore
        var testKey: JWK

        /// A token signed with the test key; every RFC 9068 claim present unless overridden (`nil` removes one).
        func handMade(
            type: String? = "at+jwt", keyID: String? = "test-key", claims extra: [String: JSONValue?] = [:],
            key: JWK? = nil
        ) throws -> String {
            let now = Int64(Date().timeIntervalSince1970)
            var claims: ClaimSet = [
                "iss": .string(MiddlewareTests.issuer), "sub": "user-1", "aud": .string(MiddlewareTests.app),
                "exp": .int(now + 600), "iat": .int(now), "jti": "j1", "client_id": .string(MiddlewareTests.app),
                "sid": "session-1",
            ]
            for (k, v) in extra { claims[k] = v }
            var signer = try JWTSigner(key: key ?? testKey, algorithm: .es256, keyID: keyID)
            signer.type = type
            return try signer.sign(claims)
        }
    }

    static func withFixture(_ body: (Fixture) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-mw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await SQLiteSessionStore.open(path: dir.appendingPathComponent("s.sqlite").path)
        do {
            let sessions = SessionManager(store: store, configuration: SessionConfiguration(issuer: issuer, audience: app))
            var testKey = try JWK.generate(curve: .p256)
            testKey.keyID = "test-key"
            testKey.algorithm = "ES256"
            testKey.use = "sig"
            _ = try await sessions.keyRing.activeKey()
            let published = try JWKSet(keys: try await sessions.keyRing.jwks().keys + [testKey.publicKey]).jsonString()

            let jwksRouter = Router()
            jwksRouter.get(".well-known/jwks.json") { _, _ in
                Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: published)))
            }
            jwksRouter.get("broken/jwks.json") { _, _ -> Response in Response(status: .internalServerError) }
            try await withLiveApp(jwksRouter) { jwksPort in
                let transport = AsyncHTTPClientTransport()
                // 30 s, not the default 5: a loaded 2-core CI machine once took longer for this loopback fetch.
                let jwks = try RemoteJWKS(
                    url: "http://127.0.0.1:\(jwksPort)/.well-known/jwks.json", transport: transport,
                    policy: RemoteJWKS.Policy(timeout: 30))
                let broken = try RemoteJWKS(url: "http://127.0.0.1:\(jwksPort)/broken/jwks.json", transport: transport)
                let router = Router(context: AuthenticatedRequestContext.self)
                router.group("api")
                    .add(middleware: AccessTokenMiddleware(jwks: jwks, issuer: issuer, audience: app))
                    .get("me") { _, context -> String in
                        guard let access = context.access else { return "no access" }
                        return "\(access.userID)|\(access.sessionID ?? "-")|\(access.clientID)|\(access.scopes.joined(separator: ","))"
                    }
                // The app's own sessions only, and a scope every token must carry.
                router.group("own")
                    .add(middleware: AccessTokenMiddleware(jwks: jwks, issuer: issuer, audience: app, allowedClients: [app]))
                    .get("me") { _, context in context.access?.clientID ?? "no access" }
                router.group("orders")
                    .add(middleware: AccessTokenMiddleware(jwks: jwks, issuer: issuer, audience: app, requiredScopes: ["orders:read", "openid"]))
                    .get("me") { _, context in context.access?.scopes.joined(separator: ",") ?? "no access" }
                router.group("down")
                    .add(middleware: AccessTokenMiddleware(jwks: broken, issuer: issuer, audience: app))
                    .get("me") { _, _ in "unreachable" }
                try await withLiveApp(router) { port in
                    try await body(Fixture(base: "http://127.0.0.1:\(port)", sessions: sessions, store: store, testKey: testKey))
                }
                try await transport.shutdown()
            }
            try await store.close()
        } catch {
            try? await store.close()
            throw error
        }
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    /// RFC 6750 §3: a refused token is 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
    static func expectInvalidToken(_ answer: Answer, token: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.status == 401, sourceLocation: sourceLocation)
        let challenge = answer.headers["WWW-Authenticate"].first ?? ""
        #expect(challenge.hasPrefix("Bearer error=\"invalid_token\""), "got \(challenge)", sourceLocation: sourceLocation)
        #expect(!answer.body.contains(token), "the token must not be echoed", sourceLocation: sourceLocation)
        #expect(answer.body.contains("\"error\":\"invalid_token\""), sourceLocation: sourceLocation)
    }

    @Test("a token from the Sessions key ring is accepted; user, session and client reach the handler")
    func acceptsIssuedToken() async throws {
        try await Self.withFixture { f in
            let signIn = try await f.sessions.signIn(with: Identity(provider: "anon-user", subject: "device-1"), clientID: Self.app)
            let answer = try await call("\(f.base)/api/me", headers: Self.bearer(signIn.tokens.accessToken))
            #expect(answer.status == 200)
            #expect(answer.body == "\(signIn.userID)|\(signIn.tokens.sessionID)|\(Self.app)|")
        }
    }

    @Test("allowedClients: an OpenID Connect client's token for the same app (aud) is 401 invalid_token; the app's own is served")
    func allowedClients() async throws {
        try await Self.withFixture { f in
            let relyingParty = try f.handMade(claims: ["client_id": "portal", "scope": "openid"])
            Self.expectInvalidToken(try await call("\(f.base)/own/me", headers: Self.bearer(relyingParty)), token: relyingParty)
            // Without allowedClients the same token is served (the check is the option's, not the signature's).
            #expect(try await call("\(f.base)/api/me", headers: Self.bearer(relyingParty)).status == 200)
            let own = try f.handMade()
            let answer = try await call("\(f.base)/own/me", headers: Self.bearer(own))
            #expect(answer.status == 200 && answer.body == Self.app)
        }
    }

    @Test("requiredScopes: a token without one of them is 403 insufficient_scope naming the scopes (RFC 6750 §3.1); with all, served")
    func requiredScopes() async throws {
        try await Self.withFixture { f in
            for scope: JSONValue? in [nil, "openid", "orders:read", "orders:readx openid"] {
                let token = try f.handMade(claims: ["scope": scope])
                let answer = try await call("\(f.base)/orders/me", headers: Self.bearer(token))
                #expect(answer.status == 403, "scope \(String(describing: scope))")
                let challenge = answer.headers["WWW-Authenticate"].first ?? ""
                #expect(challenge.hasPrefix("Bearer error=\"insufficient_scope\""), "got \(challenge)")
                #expect(challenge.contains("scope=\"openid orders:read\""), "got \(challenge)")
                #expect(answer.body.contains("\"error\":\"insufficient_scope\"") && !answer.body.contains(token))
            }
            let token = try f.handMade(claims: ["scope": "openid profile orders:read"])
            let answer = try await call("\(f.base)/orders/me", headers: Self.bearer(token))
            #expect(answer.status == 200 && answer.body == "openid,profile,orders:read")
            // A forged token with every scope is still invalid_token, not a scope question.
            let forged = try f.handMade(claims: ["scope": "openid orders:read"], key: try JWK.generate(curve: .p256))
            Self.expectInvalidToken(try await call("\(f.base)/orders/me", headers: Self.bearer(forged)), token: forged)
        }
    }

    @Test("scope is split into scopes (RFC 9068 §2.2.3)")
    func scopes() async throws {
        try await Self.withFixture { f in
            let token = try f.handMade(claims: ["scope": "read write"])
            let answer = try await call("\(f.base)/api/me", headers: Self.bearer(token))
            #expect(answer.status == 200)
            #expect(answer.body == "user-1|session-1|\(Self.app)|read,write")
        }
    }

    @Test("no credentials: 401 with a bare Bearer challenge (RFC 6750 §3.1)")
    func missing() async throws {
        try await Self.withFixture { f in
            for headers in [[], [("Authorization", "Basic dXNlcjpwYXNz")]] {
                let answer = try await call("\(f.base)/api/me", headers: headers)
                #expect(answer.status == 401)
                #expect(answer.headers["WWW-Authenticate"] == ["Bearer"])
            }
        }
    }

    @Test("two Authorization headers: 400 invalid_request")
    func repeatedHeader() async throws {
        try await Self.withFixture { f in
            let token = try f.handMade()
            let answer = try await call("\(f.base)/api/me", headers: Self.bearer(token) + Self.bearer(token))
            #expect(answer.status == 400)
            #expect(answer.headers["WWW-Authenticate"].first?.hasPrefix("Bearer error=\"invalid_request\"") == true)
        }
    }

    @Test("refused: not a JWT, wrong audience, expired, wrong typ, no kid, unknown key, wrong issuer, missing client_id")
    func refusals() async throws {
        try await Self.withFixture { f in
            let user = try await f.sessions.ensureUser(id: "u-2").user.id
            let other = SessionManager(store: f.store, configuration: SessionConfiguration(issuer: Self.issuer, audience: "another-app"))
            var past = SessionConfiguration(issuer: Self.issuer, audience: Self.app)
            past.clock = .fixed(Date().addingTimeInterval(-7200))
            let expired = SessionManager(store: f.store, configuration: past)
            var unnamed = f.testKey  // the published key itself, signing without naming it
            unnamed.keyID = nil
            var stranger = try JWK.generate(curve: .p256)
            stranger.keyID = "test-key"  // the kid of a published key, but not its key
            let refused: [(String, String)] = [
                ("not a JWT", "abc.def"),
                ("another app's audience", try await other.issueTokens(userID: user).accessToken),
                ("expired two hours ago", try await expired.issueTokens(userID: user).accessToken),
                ("typ JWT, not at+jwt", try f.handMade(type: "JWT")),
                ("no typ", try f.handMade(type: nil)),
                ("no kid", try f.handMade(keyID: nil, key: unnamed)),
                ("a kid the JWKS lacks", try f.handMade(keyID: "nobody")),
                ("signed by another key", try f.handMade(key: stranger)),
                ("another issuer", try f.handMade(claims: ["iss": "https://evil.test"])),
                ("no client_id", try f.handMade(claims: ["client_id": nil])),
                ("no exp", try f.handMade(claims: ["exp": nil])),
            ]
            for (why, token) in refused {
                let answer = try await call("\(f.base)/api/me", headers: Self.bearer(token))
                #expect(answer.status == 401, "\(why)")
                Self.expectInvalidToken(answer, token: token)
            }
            // The control: the same hand-made token with every check satisfied passes.
            #expect(try await call("\(f.base)/api/me", headers: Self.bearer(try f.handMade())).status == 200)
        }
    }

    @Test("the issuer's JWKS failing: 503, the token neither accepted nor blamed")
    func jwksDown() async throws {
        try await Self.withFixture { f in
            let answer = try await call("\(f.base)/down/me", headers: Self.bearer(try f.handMade()))
            #expect(answer.status == 503)
            #expect(answer.headers["WWW-Authenticate"].isEmpty)
        }
    }
}

/// The example of docs/middleware.md, verbatim between the markers (checked below), served and called.
@Suite struct MiddlewareDocsTests {
    @Test func middlewareDocExample() async throws {
        let jwksRouter = Router()
        let holder = PublishedKeys()
        jwksRouter.get(".well-known/jwks.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: holder.json)))
        }
        try await withLiveApp(jwksRouter) { jwksPort in
            let authServer = "http://127.0.0.1:\(jwksPort)"
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-mwdoc-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let store = try await SQLiteSessionStore.open(path: dir.appendingPathComponent("s.sqlite").path)
            let sessions = SessionManager(
                store: store,
                configuration: SessionConfiguration(
                    issuer: authServer, audience: "myapp-abcde",
                    defaultClientID: "myapp-abcde"))
            let signIn = try await sessions.signIn(with: Identity(provider: "anon-user", subject: "doc"))
            holder.json = try await sessions.keyRing.jwks().jsonString()

            // docs/middleware.md begin
            let transport = AsyncHTTPClientTransport()
            let middleware = try AccessTokenMiddleware<AuthenticatedRequestContext>(
                jwksURL: authServer + "/.well-known/jwks.json", transport: transport,
                issuer: authServer, audience: "myapp-abcde", maxKeyAge: 60, maxStale: 0)
            let router = Router(context: AuthenticatedRequestContext.self)
            router.group("api")
                .add(middleware: middleware)
                .get("me") { _, context -> String in
                    let access = context.access!  // set by the middleware once the token verified
                    return "user \(access.userID) in session \(access.sessionID ?? "-") of \(access.clientID)"
                }
            // docs/middleware.md end

            let answer = try await withLiveApp(router) { port in
                try await call("http://127.0.0.1:\(port)/api/me", headers: [("Authorization", "Bearer \(signIn.tokens.accessToken)")])
            }
            try await transport.shutdown()
            try await store.close()
            #expect(answer.status == 200)
            #expect(answer.body == "user \(signIn.userID) in session \(signIn.tokens.sessionID) of myapp-abcde")
        }

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8).components(separatedBy: "\n")
        let begin = try #require(source.firstIndex { $0.hasSuffix("// docs/middleware.md begin") })
        let end = try #require(source.firstIndex { $0.hasSuffix("// docs/middleware.md end") })
        // Compared as DocsTests compares: trimmed, runs of spaces as one (a page may align its comments).
        func normalized(_ line: String) -> String { line.split(separator: " ").joined(separator: " ") }
        let here = source[(begin + 1)..<end].map(normalized)
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/middleware.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "\n```").first)
        #expect(Array(here) == block.components(separatedBy: "\n").map(normalized))
    }
}

/// The second example of docs/middleware.md ("Which clients and scopes it serves"), verbatim
/// between the markers (DocsTests checks the page against them): an App Services session's token
/// has no scope (403), a relying party's with the scope is served, another client's is 401.
@Suite struct MiddlewareLaneDocsTests {
    @Test func laneDocExample() async throws {
        let jwksRouter = Router()
        let holder = PublishedKeys()
        jwksRouter.get(".well-known/jwks.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: holder.json)))
        }
        try await withLiveApp(jwksRouter) { jwksPort in
            let authServer = "http://127.0.0.1:\(jwksPort)"
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-mwlane-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let store = try await SQLiteSessionStore.open(path: dir.appendingPathComponent("s.sqlite").path)
            let sessions = SessionManager(
                store: store, configuration: SessionConfiguration(issuer: authServer, audience: "myapp-abcde", defaultClientID: "myapp-abcde"))
            let own = try await sessions.signIn(with: Identity(provider: "anon-user", subject: "doc"))
            let other = try await sessions.signIn(with: Identity(provider: "anon-user", subject: "doc2"), clientID: "partner")
            holder.json = try await sessions.keyRing.jwks().jsonString()
            let transport = AsyncHTTPClientTransport()

            // docs/middleware.md begin
            let middleware = try AccessTokenMiddleware<AuthenticatedRequestContext>(
                jwksURL: authServer + "/.well-known/jwks.json", transport: transport,
                issuer: authServer, audience: "myapp-abcde",
                allowedClients: ["myapp-abcde", "portal"],   // the app's own sessions and one first-party client
                requiredScopes: ["orders:read"])             // every token must carry each of them
            // docs/middleware.md end

            let router = Router(context: AuthenticatedRequestContext.self)
            router.group("api").add(middleware: middleware).get("orders") { _, _ in "orders" }
            let (noScope, foreign) = try await withLiveApp(router) { port in
                (
                    try await call("http://127.0.0.1:\(port)/api/orders", headers: [("Authorization", "Bearer \(own.tokens.accessToken)")]),
                    try await call("http://127.0.0.1:\(port)/api/orders", headers: [("Authorization", "Bearer \(other.tokens.accessToken)")])
                )
            }
            try await transport.shutdown()
            try await store.close()
            // The app's own session has no scope: 403 insufficient_scope; a client not allowed: 401 first.
            #expect(noScope.status == 403 && noScope.headers["WWW-Authenticate"].first?.contains("scope=\"orders:read\"") == true)
            #expect(foreign.status == 401 && foreign.headers["WWW-Authenticate"].first?.hasPrefix("Bearer error=\"invalid_token\"") == true)
        }
    }
}

/// The JWKS the doc test's stand-in server publishes, set once the key ring exists.
final class PublishedKeys: @unchecked Sendable {
    private let lock = NSLock()
    private var value = #"{"keys":[]}"#
    var json: String {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
