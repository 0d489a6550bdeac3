import Foundation
import JOSE
import NIOHTTP1
import ProviderStandIn
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
        let body =
            #"{"options":{"device":{"appId":"\#(app)","platform":"Realm Swift","platformVersion":"17.2","sdkVersion":"10.54.0","deviceId":"000000000000000000000000"}}}"#
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

/// realm-web 2.0.1's requests (``RealmWebClient``) against a server with every provider the tests
/// can run: a first, second and third sign-in on one device with each (the stored device id sent
/// back as `{"$oid"}`), the profile after each, a refresh, `user.deviceId`, logout, and delete
/// followed by realm-web's logout.
@Suite("realm-web 2.0.1, replayed", .serialized)
struct RealmWebReplayTests {
    static let functionSecret = "function-secret-0123456789abcdef-0123456789"

    /// A server whose `public_url` is where it listens, with `webapp` offering every provider:
    /// Google, Apple, Facebook and custom-token played by the stand-in, custom-function by a
    /// stand-in function.
    static func with(_ kind: StoreKind, _ body: (LiveServer, ProviderStandIn) async throws -> Void) async throws {
        let standIn = try await ProviderStandIn.start()
        let function = try await FunctionStandIn.start(secret: Array(functionSecret.utf8))
        do {
            let st = standIn.settings
            let apps = """
                { "webapp": { "providers": {
                    "anon-user": {}, "api-key": {}, "local-userpass": { "auto_confirm": true, "min_password_length": 8 },
                    "custom-token": { "jwks": "\(standIn.customJWKSURL)", "issuer": "\(st.customIssuer)", "audience": ["\(st.customAudience)"] },
                    "custom-function": { "url": "\(function.url)", "secret_file": "fn.secret" },
                    "oauth2-google": { "client_ids": ["\(st.googleClientID)"], "client_secret_file": "google.secret" },
                    "oauth2-apple": { "client_ids": ["\(st.appleClientID)"] },
                    "oauth2-facebook": { "app_id": "\(st.facebookAppID)", "app_secret_file": "fb.secret" } } } }
                """
            let extra = """
                "provider_urls": { "google": "\(standIn.baseURL)", "google_jwks": "\(standIn.googleJWKSURL)", "apple": "\(standIn.baseURL)",
                                   "facebook_graph": "\(standIn.baseURL)" },
                """
            let files = ["google.secret": st.googleClientSecret + "\n", "fb.secret": st.facebookAppSecret, "fn.secret": functionSecret + "\n"]
            try await LiveServer.with(kind, apps: apps, extra: extra, files: files, publicURLIsListener: true) { try await body($0, standIn) }
            try await function.shutdown()
            try await standIn.shutdown()
        } catch {
            try? await function.shutdown()
            try? await standIn.shutdown()
            throw error
        }
    }

    /// Each provider's credentials payload, as realm-web's `Credentials` builds it (`Credentials.function`'s
    /// payload already in canonical Extended JSON: `{user: "ada", age: 36, score: 2.5}`).
    static func payloads(_ standIn: ProviderStandIn, apiKey: String) throws -> [(String, JSONObject)] {
        [
            ("local-userpass", ["username": "ann@example.com", "password": "a long password"]),
            ("api-key", ["key": .string(apiKey)]),
            ("custom-token", ["token": .string(try standIn.idToken("custom"))]),
            ("custom-function", ["user": "ada", "age": .object(["$numberInt": "36"]), "score": .object(["$numberDouble": "2.5"])]),
            ("oauth2-google", ["authCode": "standin-google-code"]),
            ("oauth2-google", ["id_token": .string(try standIn.idToken("google"))]),
            ("oauth2-apple", ["id_token": .string(try standIn.idToken("apple"))]),
            ("oauth2-facebook", ["accessToken": "standin-facebook-user-token"]),
        ]
    }

    @Test("every provider signs in three times on one device; refresh, user.deviceId, logout; delete then logout", arguments: StoreKind.available)
    func everyProviderThreeTimes(kind: StoreKind) async throws {
        try await Self.with(kind) { s, standIn in
            var client = RealmWebClient(server: s, app: "webapp")
            // Anonymous: every login is a new user, on the same device.
            for _ in 0..<3 { #expect(try await client.logIn("anon-user", [:]) == 200) }
            let device = try #require(client.storedDeviceID)
            #expect(client.deviceID == device)
            #expect(client.log.first == "GET location 200")
            let keyOwner = client.userID
            let key = try await client.createAPIKey("laptop")
            let apiKey = try #require(key["key"]?.stringValue)
            #expect(try await client.registerUser("ann@example.com", "a long password") == 201)

            for (provider, payload) in try Self.payloads(standIn, apiKey: apiKey) {
                var users: Set<String> = []
                for attempt in 1...3 {
                    #expect(try await client.logIn(provider, payload) == 200, "\(provider) sign-in \(attempt): \(client.log.suffix(1))")
                    users.insert(try #require(client.userID))
                    #expect(client.storedDeviceID == device, "\(provider): the device keeps its id")
                    #expect(client.deviceID == device, "\(provider): baas_device_id")
                }
                #expect(users.count == 1, "\(provider): one user")
                if provider == "api-key" { #expect(users == [try #require(keyOwner)]) }
                try await client.refreshAccessToken()
                #expect(client.deviceID == device)
                // A dead access token: the SDK refreshes once and retries.
                client.accessToken = String(try #require(client.accessToken).dropLast(4)) + "AAAA"
                #expect(try await client.authenticated(.GET, "/auth/profile").0 == 200)
                #expect(try await client.logOut() == 204, "\(provider): logOut")
            }
            // deleteUser(): the delete, then the logout of the session it ended; both succeed.
            #expect(try await client.logIn("custom-token", ["token": .string(try standIn.idToken("custom"))]) == 200)
            let (deleted, loggedOut) = try await client.deleteUser()
            #expect(deleted == 204 && loggedOut == 204)
            // A logOut() after the session ended elsewhere succeeds too.
            #expect(try await client.logIn("anon-user", [:]) == 200)
            let stale = client.refreshToken
            #expect(try await client.logOut() == 204)
            client.refreshToken = stale
            #expect(try await client.logOut() == 204)
            #expect(!client.log.contains { $0.hasSuffix(" 500") || $0.hasSuffix(" 400") }, "\(client.log)")
        }
    }

    @Test(
        "API key ids are ObjectIds, in answers and in paths", arguments: StoreKind.available)
    func apiKeyIDsAreObjectIDs(kind: StoreKind) async throws {
        try await Self.with(kind) { s, _ in
            var client = RealmWebClient(server: s, app: "webapp")
            #expect(try await client.logIn("anon-user", [:]) == 200)
            let created = try await client.createAPIKey("laptop")
            let id = try #require(created["_id"]?.stringValue)
            #expect(id.utf8.count == 24 && id.allSatisfy { "0123456789abcdef".contains($0) })
            let (status, fetched) = try await client.fetch(.GET, "/auth/api_keys/\(id)", token: client.refreshToken)
            #expect(status == 200 && fetched?.objectValue?["_id"]?.stringValue == id)
            #expect(try await client.fetch(.PUT, "/auth/api_keys/\(id)/disable", token: client.refreshToken).0 == 204)
            #expect(try await client.fetch(.DELETE, "/auth/api_keys/\(id)", token: client.refreshToken).0 == 204)
        }
    }

    @Test(
        "linkCredentials: an anonymous user registers, and links email/password", arguments: StoreKind.available)
    func anonymousLinksEmailPassword(kind: StoreKind) async throws {
        try await Self.with(kind) { s, _ in
            var client = RealmWebClient(server: s, app: "webapp")
            #expect(try await client.logIn("anon-user", [:]) == 200)
            let anonymous = try #require(client.userID)
            #expect(try await client.registerUser("link@example.com", "a long password") == 201)
            // user.linkCredentials(Credentials.emailPassword(…)): the login route with ?link=true and the access token.
            var body: JSONObject = ["username": "link@example.com", "password": "a long password"]
            body["options"] = .object(["device": client.device])
            let (status, answer) = try await client.fetch(
                .POST, "/app/webapp/auth/providers/local-userpass/login?link=true", body: .object(body), token: client.accessToken)
            #expect(status == 200 && answer?.objectValue?["user_id"]?.stringValue == anonymous)
            let profile = try await client.authenticated(.GET, "/auth/profile")
            let types = profile.1?.objectValue?["identities"]?.arrayValue?.compactMap { $0.objectValue?["provider_type"]?.stringValue }
            #expect(Set(types ?? []) == ["anon-user", "local-userpass"])
            #expect(try await client.logIn("local-userpass", ["username": "link@example.com", "password": "a long password"]) == 200)
            #expect(client.userID == anonymous)
        }
    }
}
