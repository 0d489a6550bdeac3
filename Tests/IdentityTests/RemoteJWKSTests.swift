import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

@Suite struct RemoteJWKSTests {
    let path = "/oauth2/v3/certs"

    @Test func cachesForMaxAgeThenRevalidatesWithETag() async throws {
        var settings = ProviderStandIn.Settings()
        settings.jwksMaxAge = 300
        try await withStandIn(settings) { standIn, transport in
            let clock = ManualClock()
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport, clock: clock.clock)
            let first = try await jwks.keys()
            #expect(first.keys.map(\.keyID) == [standIn.currentKeyID])
            clock.advance(299)
            _ = try await jwks.keys()
            #expect(standIn.requestCount(path: path) == 1)
            clock.advance(2)
            let again = try await jwks.keys()
            #expect(again.keys.map(\.keyID) == [standIn.currentKeyID])
            let requests = standIn.requests.filter { $0.path == path }
            #expect(requests.count == 2)
            #expect(requests[1].header("if-none-match") == "\"standin-v1\"")
            #expect(await jwks.fetchCount == 2)
        }
    }

    @Test func maxAgeIsClampedToTheFloor() async throws {
        var settings = ProviderStandIn.Settings()
        settings.jwksMaxAge = 1
        try await withStandIn(settings) { standIn, transport in
            let clock = ManualClock()
            let policy = RemoteJWKS.Policy(minimumCacheAge: 120)
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport, clock: clock.clock, policy: policy)
            _ = try await jwks.keys()
            clock.advance(100)
            _ = try await jwks.keys()
            #expect(standIn.requestCount(path: path) == 1)
            clock.advance(30)
            _ = try await jwks.keys()
            #expect(standIn.requestCount(path: path) == 2)
        }
    }

    @Test func maxAgeIsClampedToTheCeiling() async throws {
        var settings = ProviderStandIn.Settings()
        settings.jwksMaxAge = 10 * 86400
        try await withStandIn(settings) { standIn, transport in
            let clock = ManualClock()
            let jwks = try RemoteJWKS(
                url: standIn.googleJWKSURL, transport: transport, clock: clock.clock,
                policy: RemoteJWKS.Policy(maximumCacheAge: 3600))
            _ = try await jwks.keys()
            clock.advance(3601)
            _ = try await jwks.keys()
            #expect(standIn.requestCount(path: path) == 2)
        }
    }

    @Test func concurrentColdMissesMakeOneFetch() async throws {
        try await withStandIn { standIn, transport in
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport)
            let token = try standIn.idToken("google")
            let options = VerifierOptions(issuers: ["https://accounts.google.com"], audiences: [standIn.settings.googleClientID])
            let n = 64
            let subjects = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<n {
                    group.addTask { try await KeySource.remote(jwks).verify(token, options: options).claims.subject }
                }
                var out: [String?] = []
                for try await s in group { out.append(s) }
                return out
            }
            #expect(subjects.count == n)
            #expect(subjects.allSatisfy { $0 == "110000000000000000001" })
            #expect(standIn.requestCount(path: path) == 1)
            #expect(await jwks.fetchCount == 1)
        }
    }

    @Test func unknownKidRefetchesOnceAndPicksUpRotation() async throws {
        try await withStandIn { standIn, transport in
            let clock = ManualClock()
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport, clock: clock.clock)
            let options = VerifierOptions(audiences: [standIn.settings.googleClientID])
            _ = try await KeySource.remote(jwks).verify(try standIn.idToken("google"), options: options)
            let newKid = try standIn.rotateKeys()
            clock.advance(31)  // past the cool-down since the first fetch
            let verified = try await KeySource.remote(jwks).verify(try standIn.idToken("google"), options: options)
            #expect(verified.keyID == newKid)
            #expect(standIn.requestCount(path: path) == 2)
        }
    }

    @Test func unknownKidFloodIsBoundedByTheCooldown() async throws {
        try await withStandIn { standIn, transport in
            let clock = ManualClock()
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport, clock: clock.clock)
            let options = VerifierOptions(audiences: [standIn.settings.googleClientID])
            _ = try await jwks.keys()
            clock.advance(31)
            for i in 0..<20 {
                let bogus = try standIn.idToken("google", keyID: "made-up-\(i)")
                #expect(await errorCode { _ = try await KeySource.remote(jwks).verify(bogus, options: options) } == "key_not_found")
            }
            // One refetch for the first unknown kid; the other 19 fall inside the cool-down.
            #expect(standIn.requestCount(path: path) == 2)
            clock.advance(31)
            let bogus = try standIn.idToken("google", keyID: "made-up-late")
            #expect(await errorCode { _ = try await KeySource.remote(jwks).verify(bogus, options: options) } == "key_not_found")
            #expect(standIn.requestCount(path: path) == 3)
        }
    }

    @Test func staleKeysServedWhileProviderIsDownThenBounded() async throws {
        var settings = ProviderStandIn.Settings()
        settings.jwksMaxAge = 600
        try await withStandIn(settings) { standIn, transport in
            let clock = ManualClock()
            let jwks = try RemoteJWKS(
                url: standIn.googleJWKSURL, transport: transport, clock: clock.clock,
                policy: RemoteJWKS.Policy(staleIfError: 1800))
            let good = try await jwks.keys()
            standIn.setBehavior(.fail(status: 500), for: path)
            clock.advance(601)
            #expect(try await jwks.keys().keys.map(\.keyID) == good.keys.map(\.keyID))
            #expect(standIn.requestCount(path: path) == 2)
            clock.advance(10)  // inside the retry cool-down: no new request
            _ = try await jwks.keys()
            #expect(standIn.requestCount(path: path) == 2)
            clock.advance(1800)
            #expect(await errorCode { _ = try await jwks.keys() } == "provider_unavailable")
            standIn.setBehavior(.normal, for: path)
            clock.advance(31)
            #expect(try await jwks.keys().keys.count == 1)
        }
    }

    @Test(arguments: [ProviderStandIn.Behavior.fail(status: 500), .fail(status: 404), .garbage, .malformedJWKS, .oversized(bytes: 600 * 1024)])
    func coldFailuresAreProviderUnavailable(behavior: ProviderStandIn.Behavior) async throws {
        try await withStandIn { standIn, transport in
            standIn.setBehavior(behavior, for: path)
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport)
            #expect(await errorCode { _ = try await jwks.keys() } == "provider_unavailable")
        }
    }

    @Test func stalledProviderTimesOut() async throws {
        try await withStandIn { standIn, transport in
            standIn.setBehavior(.stall, for: path)
            let jwks = try RemoteJWKS(url: standIn.googleJWKSURL, transport: transport, policy: RemoteJWKS.Policy(timeout: 0.5))
            let started = Date()
            #expect(await errorCode { _ = try await jwks.keys() } == "provider_unavailable")
            #expect(Date().timeIntervalSince(started) < 30)  // the 0.5 s timeout fired (the stand-in stalls forever); room for a loaded machine
        }
    }

    @Test func secretKeysInARemoteJWKSAreRefused() async throws {
        struct FakeTransport: HTTPTransport {
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                HTTPResponse(status: 200, body: Array(#"{"keys":[{"kty":"oct","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI"}]}"#.utf8))
            }
        }
        let jwks = try RemoteJWKS(url: "https://jwks.example/keys", transport: FakeTransport())
        #expect(await errorCode { _ = try await jwks.keys() } == "provider_unavailable")
    }

    @Test func plainHTTPOnlyForLoopback() {
        #expect(throws: TokenError(.invalidConfiguration, "")) {
            try RemoteJWKS(url: "http://www.googleapis.com/oauth2/v3/certs", transport: AsyncHTTPClientTransportStub())
        }
    }
}

struct AsyncHTTPClientTransportStub: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 500) }
}
