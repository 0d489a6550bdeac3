import Foundation
import JOSE
import Testing

/// `DELETE BASE/auth/session` after the fact: realm-web's `deleteUser()` deletes, then logs out
/// with the refresh token of the session the delete ended, and rejects on a 401; `logOut()` of
/// a user whose session ended elsewhere does the same.
@Suite("Logout of an ended session", .serialized)
struct LogoutTests {
    static let base = LiveServer.base
    static let anonLogin = base + "/app/myapp/auth/providers/anon-user/login"

    @Test("204 again, 204 after delete, 204 for a token never issued; an access token or none is 401", arguments: StoreKind.available)
    func logoutTolerates(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let login = try await s.call(.POST, Self.anonLogin, body: "{}")
            let refresh = try #require(login["refresh_token"])
            let first = try await s.call(.DELETE, Self.base + "/auth/session", bearer: refresh)
            #expect(first.status == 204 && first.header("content-type") == nil)
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: refresh).status == 401)
            // The same logout again: nothing left to end, still 204.
            #expect(try await s.call(.DELETE, Self.base + "/auth/session", bearer: refresh).status == 204)

            // Delete, then logout with the deleted user's refresh token (realm-web's deleteUser).
            let other = try await s.call(.POST, Self.anonLogin, body: "{}")
            let otherAccess = try #require(other["access_token"]), otherRefresh = try #require(other["refresh_token"])
            #expect(try await s.call(.DELETE, Self.base + "/auth/delete", bearer: otherAccess).status == 204)
            let afterDelete = try await s.call(.DELETE, Self.base + "/auth/session", bearer: otherRefresh)
            #expect(afterDelete.status == 204 && afterDelete.header("content-type") == nil)

            // A token this server never issued, in a refresh token's shape or not.
            let never = Base64URL.encode(try SecureRandom.bytes(32))
            #expect(try await s.call(.DELETE, Self.base + "/auth/session", bearer: never).status == 204)
            #expect(try await s.call(.DELETE, Self.base + "/auth/session", bearer: "not-a-token").status == 204)

            // The wrong kind of token, or none at all, is still refused.
            let live = try await s.call(.POST, Self.anonLogin, body: "{}")
            let wrongKind = try await s.call(.DELETE, Self.base + "/auth/session", bearer: live["access_token"])
            #expect(wrongKind.status == 401 && wrongKind.errorCode == "InvalidSession")
            #expect(try await s.call(.POST, Self.base + "/auth/session", bearer: live["refresh_token"]).status == 201)
            let none = try await s.call(.DELETE, Self.base + "/auth/session")
            #expect(none.status == 401 && none.errorCode == "InvalidSession")
        }
    }
}
