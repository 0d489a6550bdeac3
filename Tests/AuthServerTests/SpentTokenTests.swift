import Foundation
import JOSE
import Testing

/// In an app with `refresh_rotation`, only the current refresh token of a live session opens the
/// routes a refresh token opens (API keys, logout): a spent one is reuse there too, and ends its
/// session, so a stolen old token neither makes an API key nor outlives the theft unnoticed.
@Suite("Spent refresh tokens at the refresh-bearer routes", .serialized)
struct SpentTokenTests {
    static let base = LiveServer.base
    static let apps = #"{ "myapp": { "refresh_rotation": true, "providers": { "anon-user": {}, "api-key": {} } } }"#

    @Test("a spent token makes no API key and revokes its session, within the grace interval too", arguments: StoreKind.available)
    func spentTokenIsReuse(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let login = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            let spent = try #require(login["refresh_token"]), access = try #require(login["access_token"])
            // A key made while the token was current: the way back in for the owner, later.
            let key = try #require(try await s.call(.POST, Self.base + "/auth/api_keys", body: #"{"name":"mine"}"#, bearer: spent)["key"])
            let rotated = try await s.call(.POST, Self.base + "/auth/session", bearer: spent)
            let current = try #require(rotated["refresh_token"])
            #expect(current != spent)
            #expect(try await s.call(.GET, Self.base + "/auth/api_keys", bearer: current).status == 200)

            // The stolen old token, well inside the 10 s grace: refused, and the session ends.
            let made = try await s.call(.POST, Self.base + "/auth/api_keys", body: #"{"name":"stolen"}"#, bearer: spent)
            #expect(made.status == 401 && made.errorCode == "InvalidSession", "\(made.body)")
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: current).status == 401)
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: access).status == 401)
            #expect(try await s.call(.GET, Self.base + "/auth/api_keys", bearer: current).status == 401)
            #expect(try await s.call(.GET, Self.base + "/auth/api_keys", bearer: spent).status == 401)

            // The owner signs in again with the key made before: no key was made with the stolen token.
            let byKey = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/api-key/login", body: #"{"key":"\#(key)"}"#)
            #expect(byKey.status == 200 && byKey["user_id"] == login["user_id"])
            let names = try await s.call(.GET, Self.base + "/auth/api_keys", bearer: byKey["refresh_token"])
            #expect(names.json?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } == ["mine"])
        }
    }

    @Test("logout with a spent token: the session ends (204)", arguments: StoreKind.available)
    func logoutWithASpentToken(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let login = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            let spent = try #require(login["refresh_token"])
            let current = try #require(try await s.call(.POST, Self.base + "/auth/session", bearer: spent)["refresh_token"])
            #expect(try await s.call(.DELETE, Self.base + "/auth/session", bearer: spent).status == 204)
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: current).status == 401)
        }
    }
}
