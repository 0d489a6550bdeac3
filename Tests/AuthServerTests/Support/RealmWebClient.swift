import Foundation
import JOSE
import NIOHTTP1
import Testing

/// The requests MongoDB's realm-web 2.0.1 SDK sends, replayed byte for byte in their shapes (no
/// code of the SDK: the shapes as read from its sources, `packages/realm-web/src` of realm/realm-js
/// at tag realm-web-v2.0.1):
/// - every call goes to `location`'s `hostname` (asked once, without a token);
/// - a body is `JSON.stringify(EJSON.serialize(body))`: canonical Extended JSON, so integers are
///   `{"$numberInt"}`, other numbers `{"$numberDouble"}`, the stored device id `{"$oid"}`; sent with
///   `Content-Type: application/json`; a call without a body sends no `Content-Type`; every call
///   sends `Accept: application/json`;
/// - a login body is the credentials' payload plus `options.device` (`platform`,
///   `platformVersion`, `sdkVersion`, and `deviceId` once the app has stored one from an answer's
///   `device_id`, unless it is the zero id); then the profile is fetched;
/// - an answer is read as JSON when its `Content-Type` starts with `application/json`, as nothing
///   when it has none (a 204), and anything else is an error the SDK throws;
/// - a call with the access token that gets 401 refreshes once (`POST auth/session` with the
///   refresh token, no body) and retries; `logOut()` is `DELETE auth/session` with the refresh
///   token; `deleteUser()` is `DELETE auth/delete`, then `logOut()`.
struct RealmWebClient {
    let server: LiveServer
    let app: String
    /// `location`'s `hostname`: where every call after it goes.
    private(set) var hostname: String?
    /// The app storage's `deviceId`.
    private(set) var storedDeviceID: String?
    var accessToken: String?
    var refreshToken: String?
    private(set) var userID: String?
    /// What happened, one line per request: `METHOD path status`.
    private(set) var log: [String] = []

    init(server: LiveServer, app: String) {
        self.server = server
        self.app = app
    }

    static let base = "/api/client/v2.0"

    /// One request as realm-web's `Fetcher.fetchJSON` sends it; `nil` when the answer has no
    /// `Content-Type` (realm-web's `null`), else the parsed body.
    mutating func fetch(_ method: NIOHTTP1.HTTPMethod, _ path: String, body: JSONValue? = nil, token: String? = nil) async throws -> (Int, JSONValue?)
    {
        if hostname == nil {
            let location = try await LiveServer.send(
                .GET, server.baseURL + Self.base + "/app/\(app)/location", headers: [("Accept", "application/json")])
            log.append("GET location \(location.status)")
            #expect(location.status == 200)
            let given: String = try #require(location["hostname"])
            hostname = given
        }
        var headers = [("Accept", "application/json")]
        if let token { headers.append(("Authorization", "Bearer " + token)) }
        let answer = try await LiveServer.send(method, try #require(hostname) + Self.base + path, body: body?.jsonString, headers: headers)
        log.append("\(method.rawValue) \(path.split(separator: "?")[0]) \(answer.status)")
        guard let type = answer.header("content-type") else {
            #expect(answer.body.isEmpty, "an answer without Content-Type has no body")
            return (answer.status, nil)
        }
        #expect(type.hasPrefix("application/json"), "realm-web throws on \(type)")
        return (answer.status, answer.json)
    }

    /// A call with the access token, refreshing once on a 401 as the SDK does.
    mutating func authenticated(_ method: NIOHTTP1.HTTPMethod, _ path: String, body: JSONValue? = nil) async throws -> (Int, JSONValue?) {
        let first = try await fetch(method, path, body: body, token: accessToken)
        guard first.0 == 401 else { return first }
        try await refreshAccessToken()
        return try await fetch(method, path, body: body, token: accessToken)
    }

    /// `options.device` as `DeviceInformation` makes it, in canonical Extended JSON.
    var device: JSONValue {
        var d: JSONObject = ["platform": "node", "platformVersion": "20.11.1", "sdkVersion": "2.0.1"]
        if let id = storedDeviceID, id != "000000000000000000000000" { d["deviceId"] = .object(["$oid": .string(id)]) }
        return .object(d)
    }

    /// `app.logIn(credentials)`: the login, the answer's checks, the stored device id, the profile.
    /// - Returns: the login's status (200 or the error's).
    @discardableResult
    mutating func logIn(_ provider: String, _ payload: JSONObject) async throws -> Int {
        var body = payload
        body["options"] = .object(["device": device])
        let (status, answer) = try await fetch(.POST, "/app/\(app)/auth/providers/\(provider)/login", body: .object(body))
        guard status == 200, let o = answer?.objectValue else { return status }
        userID = try #require(o["user_id"]?.stringValue)
        accessToken = try #require(o["access_token"]?.stringValue)
        refreshToken = try #require(o["refresh_token"]?.stringValue)
        if let id = o["device_id"]?.stringValue, id != "000000000000000000000000" { storedDeviceID = id }
        let profile = try await authenticated(.GET, "/auth/profile")
        #expect(profile.0 == 200 && profile.1?.objectValue?["user_id"]?.stringValue == userID)
        return status
    }

    /// `user.refreshAccessToken()`.
    mutating func refreshAccessToken() async throws {
        let (status, answer) = try await fetch(.POST, "/auth/session", token: refreshToken)
        #expect(status == 201)
        accessToken = answer?.objectValue?["access_token"]?.stringValue
    }

    /// `user.deviceId`: the access token's `baas_device_id`, read without verifying.
    var deviceID: String? {
        guard let token = accessToken, let payload = token.split(separator: ".").dropFirst().first,
            let bytes = try? Base64URL.decode(String(payload), what: "payload"),
            let id = (try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self)))?.objectValue?["baas_device_id"]?.stringValue,
            id != "000000000000000000000000"
        else { return nil }
        return id
    }

    /// `user.logOut()`: the status of `DELETE auth/session` (realm-web rejects on anything but 2xx).
    @discardableResult
    mutating func logOut() async throws -> Int {
        let (status, _) = try await fetch(.DELETE, "/auth/session", token: refreshToken)
        accessToken = nil
        refreshToken = nil
        return status
    }

    /// `app.deleteUser(user)`: the delete, then `removeUser`'s `logOut()`; both statuses.
    mutating func deleteUser() async throws -> (delete: Int, logout: Int) {
        let (deleted, _) = try await authenticated(.DELETE, "/auth/delete")
        return (deleted, try await logOut())
    }

    /// `app.emailPasswordAuth.registerUser({email, password})`: the status.
    mutating func registerUser(_ email: String, _ password: String) async throws -> Int {
        try await fetch(
            .POST, "/app/\(app)/auth/providers/local-userpass/register", body: .object(["email": .string(email), "password": .string(password)])
        ).0
    }

    /// `user.apiKeys.create(name)`: `POST auth/api_keys` with the refresh token.
    mutating func createAPIKey(_ name: String) async throws -> JSONObject {
        let (status, answer) = try await fetch(.POST, "/auth/api_keys", body: .object(["name": .string(name)]), token: refreshToken)
        #expect(status == 201)
        return answer?.objectValue ?? [:]
    }
}
