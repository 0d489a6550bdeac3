import Foundation
import JOSE
import Testing

/// Realm's upgrade of an anonymous user to email/password (`registerUser`, then
/// `user.linkCredentials(emailPassword)`), over real HTTP, on every store.
@Suite("Linking email/password", .serialized)
struct AccountLinkTests {
    static let apps = #"{ "myapp": { "providers": { "anon-user": {}, "local-userpass": { "auto_confirm": true } } } }"#
    static let prefix = LiveServer.base + "/app/myapp/auth/providers/"

    static func credentials(_ email: String) -> String { AccountRoutesTests.json(["username": email, "password": "password of " + email]) }

    static func register(_ s: LiveServer, _ email: String) async throws {
        let r = try await s.call(
            .POST, prefix + "local-userpass/register", body: AccountRoutesTests.json(["email": email, "password": "password of " + email]))
        #expect(r.status == 201)
    }

    @Test("register makes an account; a link login joins it to the anonymous user; another user's account is 409", arguments: StoreKind.available)
    func anonymousUpgrade(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let anon = try await s.call(.POST, Self.prefix + "anon-user/login", body: "{}")
            let user = try #require(anon["user_id"]), access = try #require(anon["access_token"])
            try await Self.register(s, "ann@example.com")

            let linked = try await s.call(
                .POST, Self.prefix + "local-userpass/login?link=true", body: Self.credentials("ann@example.com"), bearer: access)
            #expect(linked.status == 200, "\(linked.body)")
            #expect(linked["user_id"] == user && linked["access_token"] != nil && linked["refresh_token"] == nil)
            // The bearer's session goes on: its device, not a new one.
            #expect(linked["device_id"] != nil && linked["device_id"] == anon["device_id"], "\(linked.body) \(anon.body)")
            // Again, to the same user: not an error.
            let again = try await s.call(
                .POST, Self.prefix + "local-userpass/login?link=true", body: Self.credentials("ann@example.com"), bearer: access)
            #expect(again.status == 200 && again["user_id"] == user)
            // The anonymous user's session goes on, and the email now signs in as that user.
            #expect(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: anon["refresh_token"]).status == 201)
            let login = try await s.call(.POST, Self.prefix + "local-userpass/login", body: Self.credentials("ann@example.com"))
            #expect(login.status == 200 && login["user_id"] == user, "\(login.body)")
            let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: login["access_token"])
            let types = Set((profile.object["identities"]?.arrayValue ?? []).compactMap { $0.objectValue?["provider_type"]?.stringValue })
            #expect(types == ["anon-user", "local-userpass"], "\(profile.body)")

            // An account that already has a user is 409 for anyone else.
            let other = try #require(try await s.call(.POST, Self.prefix + "anon-user/login", body: "{}")["access_token"])
            let taken = try await s.call(
                .POST, Self.prefix + "local-userpass/login?link=true", body: Self.credentials("ann@example.com"), bearer: other)
            #expect(taken.status == 409 && taken.errorCode == "AccountNameInUse", "\(taken.body)")
            // The first plain login of an account creates its user; after that, a link is 409 too.
            try await Self.register(s, "bob@example.com")
            let bob = try await s.call(.POST, Self.prefix + "local-userpass/login", body: Self.credentials("bob@example.com"))
            #expect(bob.status == 200 && bob["user_id"] != user)
            #expect(
                try await s.call(.POST, Self.prefix + "local-userpass/login", body: Self.credentials("bob@example.com"))["user_id"] == bob["user_id"])
            let bobTaken = try await s.call(
                .POST, Self.prefix + "local-userpass/login?link=true", body: Self.credentials("bob@example.com"), bearer: other)
            #expect(bobTaken.status == 409 && bobTaken.errorCode == "AccountNameInUse")
            // A wrong password links nothing.
            try await Self.register(s, "cy@example.com")
            let wrong = try await s.call(
                .POST, Self.prefix + "local-userpass/login?link=true",
                body: AccountRoutesTests.json(["username": "cy@example.com", "password": "not it at all"]), bearer: other)
            #expect(wrong.status == 401 && wrong.errorCode == "AuthError")
        }
    }
}
