import AuthServer
import Foundation
import JOSE
import Testing

/// What the server shows to whom: `/metrics` only to the monitoring, no outside URL or socket
/// error in a client's answer, and the declared bound on a body's members.
@Suite("Exposure: metrics, 503 bodies, body members", .serialized)
struct ExposureTests {
    static let metricsToken = "metrics-token-0123456789abcdef0123456789"

    @Test("/metrics on the main listener: 404 without metrics_token_file, and for any but its bearer")
    func metricsNeedTheToken() async throws {
        try await LiveServer.with(.sqlite) { s in
            let open = try await s.call(.GET, "/metrics")
            #expect(open.status == 404 && open.errorCode == "NotFound", "\(open.status) \(open.body.prefix(200))")
        }
        try await LiveServer.with(.sqlite, extra: #""metrics_token_file": "metrics.token","#, files: ["metrics.token": Self.metricsToken + "\n"]) {
            s in
            #expect(try await s.call(.GET, "/metrics").status == 404)
            #expect(try await s.call(.GET, "/metrics", bearer: "wrong").status == 404)
            #expect(try await s.call(.GET, "/metrics", bearer: Self.metricsToken + "x").status == 404)
            let metrics = try await s.call(.GET, "/metrics", bearer: Self.metricsToken)
            #expect(metrics.status == 200 && metrics.body.contains("tokentool_http_requests_total"), "\(metrics.body.prefix(200))")
        }
    }

    @Test("metrics_listen serves /metrics on its own address, and nothing else there")
    func metricsListener() async throws {
        try await LiveServer.with(.sqlite, extra: #""metrics_listen": "127.0.0.1:0","#) { s in
            #expect(try await s.call(.GET, "/metrics").status == 404)
            var address: String?
            _ = await FaultLoad.eventually(within: 5) {
                address = s.logs.all.first { $0.hasPrefix("metrics listening") }.flatMap { $0.split(separator: "=").last.map(String.init) }
                return address != nil
            }
            let at = "http://" + (try #require(address, "no metrics listening line: \(s.logs.all.prefix(5))"))
            let metrics = try await LiveServer.get(at + "/metrics")
            #expect(metrics.status == 200 && metrics.body.contains("tokentool_http_requests_total"))
            #expect(try await LiveServer.get(at + "/healthz").status == 404)
            #expect(try await LiveServer.get(at + LiveServer.base + "/app/myapp/location").status == 404)
        }
    }

    @Test("a custom-token JWKS that cannot be reached: 503 without its URL or the socket error; both in the log", arguments: StoreKind.available)
    func unreachableJWKSIsNotInTheBody(kind: StoreKind) async throws {
        let apps =
            #"{ "myapp": { "providers": { "custom-token": { "jwks": "http://127.0.0.1:9/keys/jwks.json", "issuer": "https://issuer.test" } } } }"#
        try await LiveServer.with(kind, apps: apps) { s in
            let token = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhIn0.c2ln"
            let answer = try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/custom-token/login", body: #"{"token":"\#(token)"}"#)
            #expect(answer.status == 503 && answer.errorCode == "ServiceUnavailable", "\(answer.status) \(answer.body)")
            for leak in ["127.0.0.1", "jwks.json", ":9", "refused", "connect"] {
                #expect(!answer.body.contains(leak), "the 503 body shows \(leak): \(answer.body)")
            }
            #expect(
                s.logs.all.contains { $0.contains("outside call failed") && $0.contains("http://127.0.0.1:9/keys/jwks.json") },
                "\(s.logs.all.suffix(5))")
        }
    }

    @Test("a body of 65 members is 400 BadRequest; 64 are read", arguments: StoreKind.available)
    func bodyMemberBound(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            func body(_ n: Int) -> String { "{" + (0..<n).map { #""m\#($0)":1"# }.joined(separator: ",") + "}" }
            let login = LiveServer.base + "/app/myapp/auth/providers/anon-user/login"
            let sixtyFour = try await s.call(.POST, login, body: body(64))
            #expect(sixtyFour.status == 200, "\(sixtyFour.body)")
            let sixtyFive = try await s.call(.POST, login, body: body(65))
            #expect(sixtyFive.status == 400 && sixtyFive.errorCode == "BadRequest", "\(sixtyFive.status) \(sixtyFive.body)")
        }
    }

    @Test("metrics_listen and metrics_token_file: errors name the member")
    func config() throws {
        #expect {
            try ServerConfig.parse(#"{"public_url":"http://a","metrics_listen":"nowhere","apps":{"x":{}}}"#, directory: "/srv")
        } throws: { e in
            (e as? TokenError)?.code == .invalidConfiguration && (e as? TokenError)?.message.hasPrefix("metrics_listen:") == true
        }
        #expect {
            try ServerConfig.parse(#"{"public_url":"http://a","metrics_token_file":"/nonexistent/token","apps":{"x":{}}}"#, directory: "/srv")
        } throws: { e in
            (e as? TokenError)?.code == .invalidConfiguration && (e as? TokenError)?.message.hasPrefix("metrics_token_file:") == true
        }
    }
}
