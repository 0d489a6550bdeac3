import Foundation
import Identity
import JOSE
import ProviderStandIn
import Testing

/// Redirects from providers and provider timeouts on JWKS fetches.
@Suite struct RedirectTests {
    @Test func neverFromHTTPSToHTTPEvenToLoopback() throws {
        for location in ["http://127.0.0.1:8080/internal", "http://localhost/admin", "http://example.com/keys"] {
            #expect(throws: TokenError(.providerUnavailable, "")) {
                try ProviderURL.redirectTarget(from: "https://www.googleapis.com/oauth2/v3/certs", location: location, crossOrigin: true)
            }
        }
        #expect(
            try ProviderURL.redirectTarget(from: "https://a.example/x", location: "https://b.example/y", crossOrigin: true) == "https://b.example/y")
    }

    @Test func jwksRedirectsStayOnTheirOrigin() throws {
        let from = "https://keys.example/jwks"
        #expect(try ProviderURL.redirectTarget(from: from, location: "/v2/jwks", crossOrigin: false) == "https://keys.example/v2/jwks")
        #expect(
            try ProviderURL.redirectTarget(from: from, location: "https://keys.example:443/v2", crossOrigin: false) == "https://keys.example:443/v2")
        for other in ["https://other.example/jwks", "https://keys.example:8443/jwks", "https://keys.example.evil.test/jwks"] {
            #expect(throws: TokenError(.providerUnavailable, "")) { try ProviderURL.redirectTarget(from: from, location: other, crossOrigin: false) }
        }
    }

    /// End to end: a stand-in's JWKS redirects to another server; the other server is never asked.
    @Test func remoteJWKSDoesNotFollowARedirectToAnotherOrigin() async throws {
        try await withStandIn { a, transport in
            let b = try await ProviderStandIn.start()
            defer { Task { try? await b.shutdown() } }
            a.setBehavior(.redirect(status: 302, location: b.googleJWKSURL), for: "/oauth2/v3/certs")
            let patient = RemoteJWKS.Policy(timeout: 30)  // a loaded test machine must not turn this into a timeout
            let jwks = try RemoteJWKS(url: a.googleJWKSURL, transport: transport, policy: patient)
            #expect(await errorCode { _ = try await jwks.keys() } == "provider_unavailable")
            #expect(b.requestCount(path: "/oauth2/v3/certs") == 0)
            // Within its own origin the redirect is followed.
            a.setBehavior(.redirect(status: 302, location: "/auth/keys"), for: "/oauth2/v3/certs")
            let same = try RemoteJWKS(url: a.googleJWKSURL, transport: transport, policy: patient)
            #expect(try await !same.keys().keys.isEmpty)
        }
    }

    /// A well-formed RS256 token naming kid "k": verifying it fetches the provider's JWKS.
    static let token = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsifQ.e30." + String(repeating: "A", count: 342)

    /// A provider's configured timeout bounds its JWKS fetch (it used to be a fixed 5 s).
    @Test func providerTimeoutReachesItsJWKSFetch() async throws {
        let transport = RecordingTransport()
        var google = GoogleProvider.Configuration(clientIDs: ["c"])
        google.timeout = 0.5
        var apple = AppleProvider.Configuration(clientIDs: ["c"])
        apple.timeout = 0.75
        var facebook = FacebookProvider.Configuration(appID: "1", appSecret: "s")
        facebook.timeout = 1.25
        _ = await errorCode { _ = try await GoogleProvider(configuration: google, transport: transport).verify(idToken: Self.token) }
        _ = await errorCode { _ = try await AppleProvider(configuration: apple, transport: transport).verify(idToken: Self.token) }
        _ = await errorCode { _ = try await FacebookProvider(configuration: facebook, transport: transport).verify(limitedLoginToken: Self.token) }
        let timeouts = transport.requests.map(\.timeout)
        #expect(timeouts == [0.5, 0.75, 1.25])
    }
}

/// Answers every request with 503 and records it.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [HTTPRequest] = []
    var requests: [HTTPRequest] { lock.withLock { recorded } }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { recorded.append(request) }
        return HTTPResponse(status: 503)
    }
}
