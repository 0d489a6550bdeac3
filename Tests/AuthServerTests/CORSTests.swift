import Foundation
import JOSE
import NIOHTTP1
import Testing

@testable import AuthServer

/// The contract's "Browsers on other origins", over HTTP on both stores: the app's
/// `allowed_request_origins` on the App Services routes (answers, errors, preflights), `*` on
/// the public documents, the OAuth endpoints for public clients' redirect origins, nothing for
/// any other origin; and the config's refusals. Chromium itself runs the same calls from pages
/// on other origins in Tests/Browser/cors_test.py.
@Suite struct CORSTests {
    static let page = "http://localhost:5173"
    static let apps = #"""
        { "myapp": { "providers": { "anon-user": {} }, "allowed_request_origins": ["http://localhost:5173", "https://shop.example"] },
          "other": { "providers": { "anon-user": {} }, "allowed_request_origins": ["https://other.example"] } }
        """#
    static let extra = #"""
        "clients": {
          "spa": { "app": "myapp", "redirect_uris": ["http://127.0.0.1/cb", "https://spa.example:8443/cb"] },
          "portal": { "app": "other", "secret_file": "portal.secret", "redirect_uris": ["https://portal.example/cb"] } },
        """#
    static let files = ["portal.secret": "portal-secret-0123456789abcdef0123\n"]

    static func with(_ kind: StoreKind, _ body: (LiveServer) async throws -> Void) async throws {
        try await LiveServer.with(kind, apps: apps, extra: extra, files: files, body)
    }

    static func expectAllowed(_ a: LiveServer.Answer, _ origin: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.header("Access-Control-Allow-Origin") == origin, "\(what): \(a.headers)", sourceLocation: sourceLocation)
        #expect(a.header("Vary")?.contains("Origin") == true, "\(what)", sourceLocation: sourceLocation)
        #expect(
            a.header("Access-Control-Expose-Headers") == "X-BAAS-Location, Retry-After, WWW-Authenticate", "\(what)",
            sourceLocation: sourceLocation)
        #expect(a.header("Access-Control-Allow-Credentials") == nil, "\(what)", sourceLocation: sourceLocation)
    }

    static func expectNoCORS(_ a: LiveServer.Answer, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let names = a.headers.map { $0.0.lowercased() }.filter { $0.hasPrefix("access-control-") }
        #expect(names.isEmpty, "\(what): \(names)", sourceLocation: sourceLocation)
    }

    static func preflight(_ s: LiveServer, _ path: String, origin: String, method: String = "POST") async throws -> LiveServer.Answer {
        try await s.call(
            .OPTIONS, path,
            headers: [("Origin", origin), ("Access-Control-Request-Method", method), ("Access-Control-Request-Headers", "content-type,authorization")])
    }

    @Test(
        "the redirect flow's link start, and it alone, allows credentials (realm-web fetches it with credentials: include)",
        arguments: StoreKind.available)
    func linkStartCredentials(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let start = LiveServer.base + "/app/myapp/auth/providers/oauth2-google/login?redirect=x&state=abc"
            let link = start + "&link=true&providerRedirectHeader=true"
            let preflight = try await Self.preflight(s, link, origin: Self.page, method: "GET")
            #expect(preflight.header("Access-Control-Allow-Origin") == Self.page && preflight.header("Access-Control-Allow-Credentials") == "true")
            // Its refusals are readable by the page: 401 without a token, 404 for a provider the app lacks.
            let anonymous = try await s.call(.GET, link, headers: [("Origin", Self.page)])
            #expect(anonymous.status == 401 && anonymous.errorCode == "InvalidSession")
            #expect(anonymous.header("Access-Control-Allow-Origin") == Self.page && anonymous.header("Access-Control-Allow-Credentials") == "true")
            let login = try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            let access = try #require(login["access_token"])
            let missing = try await s.call(.GET, link, bearer: access, headers: [("Origin", Self.page)])
            #expect(missing.status == 400 || missing.status == 404, "\(missing.body)")
            #expect(missing.header("Access-Control-Allow-Credentials") == "true")
            // Not for another origin, another method, or the sign-in start.
            Self.expectNoCORS(try await Self.preflight(s, link, origin: "https://evil.example", method: "GET"), "another origin")
            #expect(try await Self.preflight(s, link, origin: Self.page, method: "POST").header("Access-Control-Allow-Credentials") == nil)
            Self.expectAllowed(try await s.call(.GET, start, headers: [("Origin", Self.page)]), Self.page, "the sign-in start")
            #expect(try await Self.preflight(s, start, origin: Self.page, method: "GET").header("Access-Control-Allow-Credentials") == nil)
        }
    }

    @Test("App Services routes: the app's origins on answers, errors and preflights; never *, never credentials", arguments: StoreKind.available)
    func appServices(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            let app = LiveServer.base + "/app/myapp"
            let origin = [("Origin", Self.page)]
            Self.expectAllowed(try await s.call(.GET, app + "/location", headers: origin), Self.page, "location")
            let login = try await s.call(.POST, app + "/auth/providers/anon-user/login", body: "{}", headers: origin)
            #expect(login.status == 200)
            Self.expectAllowed(login, Self.page, "login")
            let access = try #require(login["access_token"]), refresh = try #require(login["refresh_token"])
            // Errors carry them too: a bad body, an unknown provider, a refused token (realm-web refreshes on that 401).
            let bad = try await s.call(.POST, app + "/auth/providers/anon-user/login", body: "[", headers: origin)
            #expect(bad.status == 400)
            Self.expectAllowed(bad, Self.page, "400")
            Self.expectAllowed(try await s.call(.POST, app + "/auth/providers/nope/login", body: "{}", headers: origin), Self.page, "404")
            let stale = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: "not-a-token", headers: origin)
            #expect(stale.status == 401)
            Self.expectAllowed(stale, Self.page, "401 without a proven app")
            // Routes without an app in the path: the bearer's app decides.
            Self.expectAllowed(try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: access, headers: origin), Self.page, "profile")
            let refreshed = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: refresh, headers: origin)
            #expect(refreshed.status == 201)
            Self.expectAllowed(refreshed, Self.page, "refresh")
            let otherOrigin = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: access, headers: [("Origin", "https://other.example")])
            #expect(otherOrigin.status == 200)
            Self.expectNoCORS(otherOrigin, "another app's origin with myapp's token")
            // Another app's path: its own list.
            Self.expectNoCORS(try await s.call(.GET, LiveServer.base + "/app/other/location", headers: origin), "other's location")
            Self.expectAllowed(
                try await s.call(.GET, LiveServer.base + "/app/other/location", headers: [("Origin", "https://other.example")]),
                "https://other.example", "other's own origin")

            // Preflights: 204 with the lists, from an allowed origin only; no token, no route needed.
            let pre = try await Self.preflight(s, app + "/auth/providers/anon-user/login", origin: Self.page)
            #expect(pre.status == 204 && pre.header("Access-Control-Allow-Origin") == Self.page)
            #expect(pre.header("Access-Control-Allow-Methods") == "GET, POST, PUT, DELETE")
            #expect(pre.header("Access-Control-Allow-Headers") == "Authorization, Content-Type, Accept, DPoP")
            #expect(pre.header("Access-Control-Max-Age") == "600" && pre.header("Vary") == "Origin")
            #expect(pre.header("Access-Control-Allow-Credentials") == nil)
            let preAuth = try await Self.preflight(s, LiveServer.base + "/auth/api_keys", origin: "https://other.example")
            #expect(preAuth.header("Access-Control-Allow-Origin") == "https://other.example", "any app's origin before a token is seen")

            // Any other origin: no Access-Control-* header at all, requests otherwise unchanged.
            for evil in ["https://evil.example", "null", "http://localhost:5174", "HTTP://LOCALHOST:5173", "http://localhost:5173/"] {
                let answer = try await s.call(.GET, app + "/location", headers: [("Origin", evil)])
                #expect(answer.status == 200)
                Self.expectNoCORS(answer, evil)
                Self.expectNoCORS(try await Self.preflight(s, app + "/auth/providers/anon-user/login", origin: evil), "preflight from \(evil)")
            }
            Self.expectNoCORS(try await s.call(.GET, app + "/location"), "no Origin")
            // The hosted pages never answer CORS.
            Self.expectNoCORS(try await s.call(.GET, "/oauth/authorize?client_id=spa", headers: origin), "authorize")
        }
    }

    @Test("discovery and the JWKS answer *; the token, revocation and userinfo endpoints public clients' origins", arguments: StoreKind.available)
    func provider(kind: StoreKind) async throws {
        try await Self.with(kind) { s in
            for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/.well-known/jwks.json"] {
                let a = try await s.call(.GET, path, headers: [("Origin", "https://anyone.example")])
                #expect(a.status == 200 && a.header("Access-Control-Allow-Origin") == "*", "\(path)")
                #expect(a.header("Access-Control-Allow-Credentials") == nil)
            }
            // spa's loopback redirect URI on any port, its https one exactly, and the app's allowed origins.
            for origin in ["http://127.0.0.1:5173", "http://127.0.0.1:9999", "https://spa.example:8443", Self.page] {
                for path in ["/oauth/token", "/oauth/revoke", "/oauth/userinfo"] {
                    let pre = try await Self.preflight(s, path, origin: origin)
                    #expect(pre.status == 204 && pre.header("Access-Control-Allow-Origin") == origin, "\(origin) \(path)")
                }
                let token = try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", "x")], headers: [("Origin", origin)])
                #expect(token.status == 401 && token["error"] == "invalid_client", "\(token.body)")
                Self.expectAllowed(token, origin, "token error for \(origin)")
            }
            // The allowed origins of portal's app (other) count for the provider's endpoints too.
            #expect(try await Self.preflight(s, "/oauth/token", origin: "https://other.example").header("Access-Control-Allow-Origin") == "https://other.example")
            // A confidential client's redirect origin, spa's https host on another port, a look-alike: nothing.
            for origin in ["https://portal.example", "https://spa.example", "http://localhost:5173.evil.example", "https://evil.example"] {
                Self.expectNoCORS(try await Self.preflight(s, "/oauth/token", origin: origin), origin)
                Self.expectNoCORS(try await s.call(.GET, "/oauth/userinfo", headers: [("Origin", origin)]), origin)
            }
        }
    }

    @Test("allowed_request_origins: anything but an origin as a browser sends it is a config error naming the entry")
    func configRefusals() throws {
        for (bad, why) in [
            ("https://shop.example/", "no path"), ("https://*.shop.example", "wildcard"), ("null", "null"),
            ("HTTPS://shop.example", "lower-case"), ("http://shop.example", "http"), ("https://shop.example:443", "default port"),
            ("http://localhost:80", "default port"), ("shop.example", "origin like"), ("https://user@shop.example", "origin like"),
            ("https://shop.example:0", "port"), ("https://shop.example:65536", "port"),
        ] {
            let problem = AppConfig.originProblem(bad)
            #expect(problem?.contains(why) == true, "\(bad): \(problem ?? "accepted")")
        }
        for good in ["https://shop.example", "https://shop.example:8443", "http://localhost:5173", "http://127.0.0.1", "http://[::1]:3000"] {
            #expect(AppConfig.originProblem(good) == nil, "\(good)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-cors-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = #"{ "public_url": "http://auth.test", "store": "s.sqlite", "apps": { "a": { "allowed_request_origins": ["https://ok.example", "https://shop.example/"] } } }"#
        try text.write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfig.load(path: dir + "/server.json", environment: [:])
        } throws: { error in
            (error as? TokenError)?.message.contains("allowed_request_origins[1]") == true
        }
    }
}
