import Foundation
import JOSE
import Testing

/// The App Services routes over real HTTP, on SQLite and PostgreSQL.
@Suite("App Services routes", .serialized)
struct AppServicesTests {
    static let base = LiveServer.base
    static let anonLogin = base + "/app/myapp/auth/providers/anon-user/login"
    static let device =
        #"{"options":{"device":{"deviceId":"0000000000000000000000aa","platform":"iOS","platformVersion":"17.0","sdkVersion":"10.50.0","deviceName":"Ann's phone"}}}"#

    @Test("anonymous login; profile; refresh keeps the refresh token; logout ends the session", arguments: StoreKind.available)
    func anonymousFlow(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let login = try await s.call(.POST, Self.anonLogin, body: Self.device)
            #expect(login.status == 200)
            #expect(login.header("cache-control") == "no-store")
            let access = try #require(login["access_token"]), refresh = try #require(login["refresh_token"]), user = try #require(login["user_id"])
            #expect(login["device_id"] == "0000000000000000000000aa")
            #expect(Set(login.object.keys) == ["access_token", "refresh_token", "user_id", "device_id"])

            // Every anon-user login creates a new user.
            let second = try await s.call(.POST, Self.anonLogin, body: "{}")
            #expect(second.status == 200 && second["user_id"] != user)
            #expect(second["device_id"]?.count == 24)

            let profile = try await s.call(.GET, Self.base + "/auth/profile", bearer: access)
            #expect(profile.status == 200)
            #expect(profile["user_id"] == user && profile["type"] == "normal" && profile["domain_id"] == "")
            let identities = try #require(profile.object["identities"]?.arrayValue)
            #expect(identities.count == 1 && identities.first?.objectValue?["provider_type"] == "anon-user")

            let refreshed = try await s.call(.POST, Self.base + "/auth/session", bearer: refresh)
            #expect(refreshed.status == 201 && Set(refreshed.object.keys) == ["access_token"])
            #expect(refreshed.header("cache-control") == "no-store")
            let again = try await s.call(.POST, Self.base + "/auth/session", bearer: refresh)
            #expect(again.status == 201)  // the same refresh token lives on

            let sessions = try await s.call(.GET, Self.base + "/auth/sessions", bearer: access)
            #expect(sessions.status == 200)
            let list = try #require(sessions.json?.arrayValue)
            #expect(list.count == 1)
            let mine = try #require(list.first?.objectValue)
            #expect(mine["device_id"] == "0000000000000000000000aa" && mine["platform"] == "iOS" && mine["device_name"] == "Ann's phone")
            #expect(mine["current"] == .bool(true))

            // Refresh tokens are not access tokens and the reverse.
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: refresh).status == 401)
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: access).errorCode == "InvalidSession")

            let logout = try await s.call(.DELETE, Self.base + "/auth/session", bearer: refresh)
            #expect(logout.status == 204)
            // The 401 rule: a call with the access token of an ended session is 401 at once; the refresh token is dead.
            let after = try await s.call(.GET, Self.base + "/auth/profile", bearer: access)
            #expect(after.status == 401 && after.errorCode == "InvalidSession")
            let dead = try await s.call(.POST, Self.base + "/auth/session", bearer: refresh)
            #expect(dead.status == 401 && dead.errorCode == "InvalidSession")
        }
    }

    @Test(
        "refresh_rotation: a new refresh token each time; the spent one within grace gets the same successor; reuse later ends the session",
        arguments: StoreKind.available)
    func rotation(kind: StoreKind) async throws {
        // A grace of whole seconds, wide enough for a replay right after the rotation on a loaded machine.
        let apps = #"{ "myapp": { "refresh_rotation": true, "reuse_grace": "3s", "providers": { "anon-user": {} } } }"#
        try await LiveServer.with(kind, apps: apps) { s in
            let login = try await s.call(.POST, Self.anonLogin, body: "{}")
            let first = try #require(login["refresh_token"])
            let r1 = try await s.call(.POST, Self.base + "/auth/session", bearer: first)
            #expect(r1.status == 201)
            let second = try #require(r1["refresh_token"])
            #expect(second != first)
            let replay = try await s.call(.POST, Self.base + "/auth/session", bearer: first)
            #expect(replay.status == 201 && replay["refresh_token"] == second)
            try await Task.sleep(for: .seconds(4.2))
            let reuse = try await s.call(.POST, Self.base + "/auth/session", bearer: first)
            #expect(reuse.status == 401 && reuse.errorCode == "InvalidSession")
            // Reuse revoked the whole session: the successor is dead too.
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: second).status == 401)
        }
    }

    @Test("delete: the user, identities, sessions and API keys are gone", arguments: StoreKind.available)
    func deleteUser(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let login = try await s.call(.POST, Self.anonLogin, body: "{}")
            let access = try #require(login["access_token"]), refresh = try #require(login["refresh_token"])
            let created = try await s.call(.POST, Self.base + "/auth/api_keys", body: #"{"name":"k1"}"#, bearer: refresh)
            let key = try #require(created["key"])
            #expect(try await s.call(.DELETE, Self.base + "/auth/delete", bearer: access).status == 204)
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: access).status == 401)
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: refresh).status == 401)
            let keyLogin = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/api-key/login", body: #"{"key":"\#(key)"}"#)
            #expect(keyLogin.status == 401 && keyLogin.errorCode == "AuthError")
        }
    }

    @Test("sessions: a user signs out another device; another user's session is not found", arguments: StoreKind.available)
    func endOtherSession(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let phone = try await s.call(.POST, Self.anonLogin, body: "{}")
            let access = try #require(phone["access_token"])
            let user = try #require(phone["user_id"])
            // A second session of the same user, by API key.
            let key = try #require(
                try await s.call(
                    .POST, Self.base + "/auth/api_keys", body: #"{"name":"laptop"}"#,
                    bearer: phone["refresh_token"])["key"])
            let laptop = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/api-key/login", body: #"{"key":"\#(key)"}"#)
            #expect(laptop.status == 200 && laptop["user_id"] == user)
            let list = try #require(try await s.call(.GET, Self.base + "/auth/sessions", bearer: access).json?.arrayValue)
            #expect(list.count == 2)
            let other = try #require(list.compactMap(\.objectValue).first { $0["current"] == .bool(false) }?["id"]?.stringValue)
            #expect(try await s.call(.DELETE, Self.base + "/auth/sessions/" + other, bearer: access).status == 204)
            let laptopAccess = try #require(laptop["access_token"])
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: laptopAccess).status == 401)
            let stranger = try #require(try await s.call(.POST, Self.anonLogin, body: "{}")["access_token"])
            let current = try #require(list.compactMap(\.objectValue).first { $0["current"] == .bool(true) }?["id"]?.stringValue)
            let refused = try await s.call(.DELETE, Self.base + "/auth/sessions/" + current, bearer: stranger)
            #expect(refused.status == 404)
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: access).status == 200)
        }
    }
}
