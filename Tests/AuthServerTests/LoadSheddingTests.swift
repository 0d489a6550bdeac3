import AsyncHTTPClient
import AuthServer
import Foundation
import JOSE
import NIOCore
import ProviderStandIn
import Testing

/// `max_in_flight` over real HTTP: past the limit the server answers at once instead of queueing.
@Suite("Load shedding: max_in_flight", .serialized)
struct LoadSheddingTests {
    @Test("past max_in_flight a request gets 503 ServiceUnavailable with Retry-After at once; healthz is exempt; the slot comes back")
    func shedsPastTheLimit() async throws {
        let standIn = try await ProviderStandIn.start()
        do {
            standIn.setBehavior(.stall, for: "/oauth2/v3/certs")  // Google's JWKS never answers
            let apps = #"{"myapp":{"providers":{"anon-user":{},"oauth2-google":{"client_ids":["\#(standIn.settings.googleClientID)"]}}}}"#
            let extra = #""max_in_flight": 1, "provider_timeout": "3s", "provider_urls": {"google_jwks": "\#(standIn.googleJWKSURL)"},"#
            try await LiveServer.with(.sqlite, apps: apps, extra: extra) { s in
                // A Google login waiting for its provider holds the only slot.
                let body = #"{"id_token":"\#(try standIn.idToken("google"))"}"#
                let held = Task { try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login", body: body) }
                // Probe only once the login is inside, waiting for the JWKS: a probe sent first would
                // take the slot itself, and the login would be the one shed.
                let clock = ContinuousClock(), start = clock.now
                while standIn.requestCount(path: "/oauth2/v3/certs") == 0, clock.now - start < .seconds(5) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(standIn.requestCount(path: "/oauth2/v3/certs") > 0, "the login never reached its provider")
                var shed: LiveServer.Answer?
                for _ in 0..<100 {
                    let answer = try await s.call(.GET, LiveServer.base + "/app/myapp/location")
                    if answer.status == 503 { shed = answer; break }
                    #expect(answer.status == 200)
                    try await Task.sleep(for: .milliseconds(25))
                }
                let answer = try #require(shed, "the second request was never refused while the first held the only slot")
                #expect(answer.errorCode == "ServiceUnavailable")
                #expect(answer.header("retry-after") == "1")
                #expect(answer["link"] == "http://auth.test/errors#ServiceUnavailable")
                #expect(try await s.call(.GET, "/healthz").status == 200)

                let login = try await held.value
                #expect(login.status == 503, "\(login.body)")  // the provider never answered
                #expect(try await s.call(.GET, LiveServer.base + "/app/myapp/location").status == 200)
            }
            try await standIn.shutdown()
        } catch {
            try? await standIn.shutdown()
            throw error
        }
    }

    @Test("max_in_flight defaults to 32 and must be 1…100000")
    func config() throws {
        let parse = { (text: String) in try ServerConfig.parse(text, directory: "/srv/auth") }
        #expect(try parse(#"{"public_url":"http://a","apps":{"x":{}}}"#).maxInFlight == 32)
        #expect(try parse(#"{"public_url":"http://a","max_in_flight":3,"apps":{"x":{}}}"#).maxInFlight == 3)
        for bad in ["0", "100001", "\"8\"", "1.5"] {
            #expect(throws: TokenError(.invalidConfiguration, "")) {
                try parse(#"{"public_url":"http://a","max_in_flight":\#(bad),"apps":{"x":{}}}"#)
            }
        }
    }
}
