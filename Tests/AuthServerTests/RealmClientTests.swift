import Foundation
import JOSE
import NIOHTTP1
import Testing

/// A client that behaves as the Realm SDKs do, written from the protocol: ask `location`, log in,
/// call with the access token, on a 401 refresh once with the refresh token and retry; a 401 on
/// the refresh means signed out.
struct RealmLikeClient {
    let server: LiveServer
    let app: String
    var accessToken: String?
    var refreshToken: String?
    var hostname: String?
    private(set) var calls: [String] = []

    init(server: LiveServer, app: String) {
        self.server = server
        self.app = app
    }

    mutating func start() async throws {
        let location = try await server.call(.GET, LiveServer.base + "/app/\(app)/location")
        calls.append("location \(location.status)")
        hostname = location["hostname"]
    }

    mutating func loginAnonymously() async throws {
        let body = #"{"options":{"device":{"appId":"\#(app)","platform":"Realm Swift","platformVersion":"17.2","sdkVersion":"10.54.0","deviceId":"000000000000000000000000"}}}"#
        let answer = try await server.call(.POST, LiveServer.base + "/app/\(app)/auth/providers/anon-user/login", body: body)
        calls.append("login \(answer.status)")
        accessToken = answer["access_token"]
        refreshToken = answer["refresh_token"]
    }

    /// An authenticated call with the refresh-and-retry-once rule.
    mutating func authenticated(_ method: NIOHTTP1.HTTPMethod, _ path: String) async throws -> LiveServer.Answer {
        var answer = try await server.call(method, LiveServer.base + path, bearer: accessToken)
        calls.append("\(method.rawValue) \(path) \(answer.status)")
        if answer.status == 401 {
            let refreshed = try await server.call(.POST, LiveServer.base + "/auth/session", bearer: refreshToken)
            calls.append("refresh \(refreshed.status)")
            guard refreshed.status == 201 else {
                accessToken = nil
                refreshToken = nil
                return refreshed
            }
            accessToken = refreshed["access_token"]
            answer = try await server.call(method, LiveServer.base + path, bearer: accessToken)
            calls.append("\(method.rawValue) \(path) \(answer.status)")
        }
        return answer
    }

    mutating func logOut() async throws {
        let answer = try await server.call(.DELETE, LiveServer.base + "/auth/session", bearer: refreshToken)
        calls.append("logout \(answer.status)")
        accessToken = nil
        refreshToken = nil
    }
}

@Suite("A Realm client's sequence", .serialized)
struct RealmClientTests {
    @Test("location, login, profile, refresh on 401 and retry, logout; after logout the refresh is refused", arguments: StoreKind.available)
    func sequence(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            var client = RealmLikeClient(server: s, app: "myapp")
            try await client.start()
            #expect(client.hostname == "http://auth.test")
            try await client.loginAnonymously()
            let profile = try await client.authenticated(.GET, "/auth/profile")
            #expect(profile.status == 200)
            // The stored access token goes bad (as when it expires): the client refreshes once and retries.
            let good = try #require(client.accessToken)
            client.accessToken = String(good.dropLast(4)) + "AAAA"
            let again = try await client.authenticated(.GET, "/auth/profile")
            #expect(again.status == 200 && again["user_id"] == profile["user_id"])
            let stale = try #require(client.refreshToken)
            try await client.logOut()
            #expect(
                client.calls == [
                    "location 200", "login 200", "GET /auth/profile 200", "GET /auth/profile 401", "refresh 201",
                    "GET /auth/profile 200", "logout 204",
                ])
            // Signed out: the old refresh token is 401 too.
            #expect(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: stale).status == 401)
        }
    }
}
