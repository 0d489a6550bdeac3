import Foundation
import JOSE
import Testing

@Suite("API keys", .serialized)
struct APIKeyTests {
    static let base = LiveServer.base
    static let keys = base + "/auth/api_keys"
    static let keyLogin = base + "/app/myapp/auth/providers/api-key/login"

    @Test("create (shown once), names unique, list, get, disable, enable, delete; at most 20", arguments: StoreKind.available)
    func lifecycle(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let login = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            let refresh = try #require(login["refresh_token"]), access = try #require(login["access_token"]), user = try #require(login["user_id"])

            let created = try await s.call(.POST, Self.keys, body: #"{"name":"ci"}"#, bearer: refresh)
            #expect(created.status == 201)
            #expect(Set(created.object.keys) == ["_id", "key", "name", "disabled"])
            #expect(created["name"] == "ci" && created.object["disabled"] == .bool(false))
            let id = try #require(created["_id"]), key = try #require(created["key"])

            let clash = try await s.call(.POST, Self.keys, body: #"{"name":"ci"}"#, bearer: refresh)
            #expect(clash.status == 409 && clash.errorCode == "APIKeyAlreadyExists")
            // API key routes take the refresh token, not the access token.
            #expect(try await s.call(.GET, Self.keys, bearer: access).status == 401)

            let list = try await s.call(.GET, Self.keys, bearer: refresh)
            #expect(list.status == 200 && list.json == .array([.object(["_id": .string(id), "name": "ci", "disabled": false])]))
            let one = try await s.call(.GET, Self.keys + "/" + id, bearer: refresh)
            #expect(one.status == 200 && one.object["key"] == nil && one["name"] == "ci")

            let signedIn = try await s.call(.POST, Self.keyLogin, body: #"{"key":"\#(key)"}"#)
            #expect(signedIn.status == 200 && signedIn["user_id"] == user)

            #expect(try await s.call(.PUT, Self.keys + "/" + id + "/disable", bearer: refresh).status == 204)
            let refused = try await s.call(.POST, Self.keyLogin, body: #"{"key":"\#(key)"}"#)
            #expect(refused.status == 401 && refused.errorCode == "AuthError")
            #expect(try await s.call(.PUT, Self.keys + "/" + id + "/enable", bearer: refresh).status == 204)
            #expect(try await s.call(.POST, Self.keyLogin, body: #"{"key":"\#(key)"}"#).status == 200)

            #expect(try await s.call(.DELETE, Self.keys + "/" + id, bearer: refresh).status == 204)
            let gone = try await s.call(.GET, Self.keys + "/" + id, bearer: refresh)
            #expect(gone.status == 404 && gone.errorCode == "APIKeyNotFound")
            #expect(try await s.call(.PUT, Self.keys + "/" + id + "/enable", bearer: refresh).errorCode == "APIKeyNotFound")
            #expect(try await s.call(.POST, Self.keyLogin, body: #"{"key":"\#(key)"}"#).status == 401)

            for n in 1...20 { #expect(try await s.call(.POST, Self.keys, body: #"{"name":"k\#(n)"}"#, bearer: refresh).status == 201) }
            let over = try await s.call(.POST, Self.keys, body: #"{"name":"k21"}"#, bearer: refresh)
            #expect(over.status == 400 && over.errorCode == "InvalidParameter")

            // Another user's key id is not found for this user.
            let other = try #require(try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")["refresh_token"])
            let theirs = try await s.call(.GET, Self.keys, bearer: other)
            #expect(theirs.json == .array([]))
        }
    }

    @Test(
        "a key's _id is an ObjectId: 24 lower-case hex digits, its first four bytes the creation time; paths take it", arguments: StoreKind.available)
    func idsAreObjectIDs(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let refresh = try #require(try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")["refresh_token"])
            let before = Int64(Date().timeIntervalSince1970)
            let created = try await s.call(.POST, Self.keys, body: #"{"name":"oid"}"#, bearer: refresh)
            let id = try #require(created["_id"])
            #expect(id.count == 24 && id.allSatisfy { "0123456789abcdef".contains($0) }, "\(id)")
            let seconds = Int64(id.prefix(8), radix: 16) ?? 0
            #expect(seconds >= before - 1 && seconds <= Int64(Date().timeIntervalSince1970) + 1)
            #expect(try await s.call(.GET, Self.keys + "/" + id, bearer: refresh)["_id"] == id)
            #expect(try await s.call(.PUT, Self.keys + "/" + id + "/disable", bearer: refresh).status == 204)
            #expect(try await s.call(.DELETE, Self.keys + "/" + id, bearer: refresh).status == 204)
        }
    }
}
