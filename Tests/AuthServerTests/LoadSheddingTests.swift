import AsyncHTTPClient
import AuthServer
import Foundation
import JOSE
import NIOCore
import Testing

/// `max_in_flight` over real HTTP: past the limit the server answers at once instead of queueing.
@Suite("Load shedding: max_in_flight", .serialized)
struct LoadSheddingTests {
    @Test("past max_in_flight a request gets 503 ServiceUnavailable with Retry-After at once; healthz is exempt; the slot comes back")
    func shedsPastTheLimit() async throws {
        try await LiveServer.with(.sqlite, extra: #""max_in_flight": 1,"#) { s in
            // A login whose body has not arrived yet is in flight: its handler waits for the body.
            let (body, feed) = AsyncStream<ByteBuffer>.makeStream()
            var request = HTTPClientRequest(url: s.baseURL + LiveServer.base + "/app/myapp/auth/providers/anon-user/login")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .stream(body, length: .known(Int64(2)))
            let held = Task { () async throws -> (Int, String) in
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let bytes = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), String(buffer: bytes))
            }
            var shed: LiveServer.Answer?
            for _ in 0..<400 {
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
            #expect(try await s.call(.GET, "/metrics").status == 200)

            feed.yield(ByteBuffer(string: "{}"))
            feed.finish()
            let (status, text) = try await held.value
            #expect(status == 200)
            #expect(try JSONValue(parsing: text).objectValue?["refresh_token"]?.stringValue != nil)
            #expect(try await s.call(.GET, LiveServer.base + "/app/myapp/location").status == 200)
        }
    }

    @Test("max_in_flight defaults to 64 and must be 1…100000")
    func config() throws {
        let parse = { (text: String) in try ServerConfig.parse(text, directory: "/srv/auth") }
        #expect(try parse(#"{"public_url":"http://a","apps":{"x":{}}}"#).maxInFlight == 64)
        #expect(try parse(#"{"public_url":"http://a","max_in_flight":3,"apps":{"x":{}}}"#).maxInFlight == 3)
        for bad in ["0", "100001", "\"8\"", "1.5"] {
            #expect(throws: TokenError(.invalidConfiguration, "")) {
                try parse(#"{"public_url":"http://a","max_in_flight":\#(bad),"apps":{"x":{}}}"#)
            }
        }
    }
}
