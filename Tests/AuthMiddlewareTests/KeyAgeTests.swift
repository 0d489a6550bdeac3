@testable import AuthMiddleware
import Foundation
import Hummingbird
import Identity
import JOSE
import Logging
import Synchronization
import Testing

/// How long a signing key the server revoked keeps verifying at a resource server: the key set is
/// refetched within `maxKeyAge` whatever its `Cache-Control`, and served stale for at most `maxStale`.
@Suite("AccessTokenMiddleware: revoked keys within maxKeyAge")
struct KeyAgeTests {
    static let issuer = "https://auth.test", app = "myapp-abcde"

    /// A clock the test moves.
    final class Clock: Sendable {
        let now = Mutex(Date())
        var tokenClock: TokenClock { TokenClock { self.now.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    static func key(_ kid: String) throws -> JWK {
        var key = try JWK.generate(curve: .p256)
        key.keyID = kid
        key.algorithm = "ES256"
        return key
    }

    static func token(_ key: JWK, clock: Clock) throws -> String {
        let now = Int64(clock.now.withLock { $0 }.timeIntervalSince1970)
        var signer = try JWTSigner(key: key, algorithm: .es256, keyID: key.keyID)
        signer.type = "at+jwt"
        return try signer.sign([
            "iss": .string(issuer), "sub": "user-1", "aud": .string(app), "exp": .int(now + 3600), "iat": .int(now), "jti": "j1",
            "client_id": .string(app),
        ])
    }

    static func request(_ token: String) -> Request {
        Request(
            head: Hummingbird.HTTPRequest(
                method: .get, scheme: "http", authority: "api.test", path: "/me", headerFields: [.authorization: "Bearer " + token]),
            body: RequestBody(buffer: ByteBuffer()))
    }

    /// The middleware's verdict on `token`: nil when accepted, else the refusal's status.
    static func verdict(_ middleware: AccessTokenMiddleware<AuthenticatedRequestContext>, _ token: String) async -> Int? {
        do {
            _ = try await middleware.verify(request: request(token), logger: Logger(label: "test"))
            return nil
        } catch let e as BearerTokenError { return Int(e.status.code) } catch { return -1 }
    }

    @Test("a key the server drops stops verifying within maxKeyAge, though the JWKS said max-age=300")
    func revokedKeyWithinMaxKeyAge() async throws {
        let server = ScriptedJWKS(), clock = Clock()
        let (old, new) = (try Self.key("old"), try Self.key("new"))
        server.answer.withLock { $0 = (200, [old.publicKey, new.publicKey]) }
        let middleware = try AccessTokenMiddleware<AuthenticatedRequestContext>(
            jwksURL: "https://auth.test/.well-known/jwks.json", transport: server, issuer: Self.issuer, audience: Self.app,
            maxKeyAge: 30, clock: clock.tokenClock)
        let signedByOld = try Self.token(old, clock: clock)
        #expect(await Self.verdict(middleware, signedByOld) == nil)
        server.answer.withLock { $0 = (200, [new.publicKey]) }  // `keys revoke old` at the server
        clock.advance(29)
        #expect(await Self.verdict(middleware, signedByOld) == nil, "within maxKeyAge the cached set still has it")
        clock.advance(2)
        #expect(await Self.verdict(middleware, signedByOld) == 401, "a revoked key verified past maxKeyAge")
        #expect(await Self.verdict(middleware, try Self.token(new, clock: clock)) == nil)
    }

    @Test("while the server is down the last keys serve for maxStale at most, then 503")
    func staleWindowIsBounded() async throws {
        let server = ScriptedJWKS(), clock = Clock()
        let key = try Self.key("k1")
        server.answer.withLock { $0 = (200, [key.publicKey]) }
        let middleware = try AccessTokenMiddleware<AuthenticatedRequestContext>(
            jwksURL: "https://auth.test/.well-known/jwks.json", transport: server, issuer: Self.issuer, audience: Self.app,
            maxKeyAge: 30, maxStale: 20, clock: clock.tokenClock)
        #expect(await Self.verdict(middleware, try Self.token(key, clock: clock)) == nil)
        server.answer.withLock { $0.status = 500 }
        clock.advance(45)  // past maxKeyAge, within maxStale
        #expect(await Self.verdict(middleware, try Self.token(key, clock: clock)) == nil)
        clock.advance(10)  // past both (the default policy would serve them for an hour)
        #expect(await Self.verdict(middleware, try Self.token(key, clock: clock)) == 503)
    }

    @Test("keyPolicy bounds every freshness of the key set")
    func policy() {
        let p = AccessTokenMiddleware<AuthenticatedRequestContext>.keyPolicy(maxKeyAge: 10, maxStale: 5)
        #expect(p.maximumCacheAge == 10 && p.minimumCacheAge <= 10 && p.defaultCacheAge <= 10 && p.unknownKeyCooldown <= 10)
        #expect(p.staleIfError == 5)
        #expect(AccessTokenMiddleware<AuthenticatedRequestContext>.keyPolicy().staleIfError == 0)
    }
}
