import Foundation
import JOSE
import Testing

/// Bad requests are 4xx naming the member, and the server keeps serving; nothing secret in a body.
@Suite("Request errors", .serialized)
struct RequestErrorTests {
    static let base = LiveServer.base
    static let keyLogin = base + "/app/myapp/auth/providers/api-key/login"

    @Test("not JSON, wrong type, missing or mistyped member, body over 64 KiB, unknown provider", arguments: StoreKind.available)
    func refusals(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let notJSON = try await s.call(.POST, Self.keyLogin, body: "{\"key\": ")
            #expect(notJSON.status == 400 && notJSON.errorCode == "BadRequest")
            let array = try await s.call(.POST, Self.keyLogin, body: "[1]")
            #expect(array.status == 400 && array.errorCode == "BadRequest")
            let duplicate = try await s.call(.POST, Self.keyLogin, body: #"{"key":"a","key":"b"}"#)
            #expect(duplicate.status == 400 && duplicate.errorCode == "BadRequest")
            let missing = try await s.call(.POST, Self.keyLogin, body: "{}")
            #expect(missing.status == 400 && missing.errorCode == "MissingParameter")
            #expect(missing["error"]?.contains("\"key\"") == true)
            let mistyped = try await s.call(.POST, Self.keyLogin, body: #"{"key": 42}"#)
            #expect(mistyped.status == 400 && mistyped.errorCode == "InvalidParameter")
            #expect(mistyped["error"]?.contains("\"key\"") == true)
            let badDevice = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: #"{"options":{"device":[]}}"#)
            #expect(badDevice.status == 400 && badDevice.errorCode == "InvalidParameter")

            let big = #"{"key":""# + String(repeating: "a", count: 70 * 1024) + #""}"#
            let tooLarge = try await s.call(.POST, Self.keyLogin, body: big)
            #expect(tooLarge.status == 413 && tooLarge.errorCode == "RequestTooLarge")

            let noProvider = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/oauth2-google/login", body: #"{"id_token":"x"}"#)
            #expect(noProvider.status == 404 && noProvider.errorCode == "AuthProviderNotFound")
            let noApp = try await s.call(.POST, Self.base + "/app/nope/auth/providers/anon-user/login", body: "{}")
            #expect(noApp.status == 404 && noApp.errorCode == "AppNotFound")
            // GET is web sign-in's start (docs/oidc.md, "Web sign-in"); the login path takes no PUT.
            let wrongMethod = try await s.call(.PUT, Self.base + "/app/myapp/auth/providers/anon-user/login")
            #expect(wrongMethod.status == 405 && wrongMethod.errorCode == "MethodNotAllowed" && wrongMethod.header("allow") == "GET, POST")
            // A literal segment is matched before a parameter, as the router does: the passkey paths' own methods only.
            for (path, allow) in [
                (Self.base + "/app/myapp/auth/providers/passkey/login", "POST"), (Self.base + "/auth/passkeys/registration", "POST"),
                ("/oauth/login/passkey", "POST"), (Self.base + "/auth/passkeys/abc", "DELETE"),
            ] {
                let answer = try await s.call(.PUT, path)
                #expect(answer.status == 405 && answer.header("allow") == allow, "\(path): \(answer.header("allow") ?? "none")")
            }

            let unknownKey = try await s.call(.POST, Self.keyLogin, body: #"{"key":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#)
            #expect(unknownKey.status == 401 && unknownKey.errorCode == "AuthError")
            #expect(unknownKey["error"]?.contains("AAAAAAAA") == false)

            // No bearer, a bearer that is not a token, a token with a bad signature: 401 InvalidSession.
            #expect(try await s.call(.GET, Self.base + "/auth/profile").errorCode == "InvalidSession")
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: "nonsense").status == 401)
            let login = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            let access = try #require(login["access_token"])
            let parts = access.split(separator: ".")
            let forged = parts[0] + "." + parts[1] + "." + String(parts[2].reversed())
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: String(forged)).status == 401)

            // Still serving.
            #expect(try await s.call(.GET, "/healthz").status == 200)
        }
    }

    @Test("a disabled user: logins and refreshes 403 UserDisabled, access tokens 401; enabled again works", arguments: StoreKind.available)
    func disabledUser(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let login = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            let access = try #require(login["access_token"]), refresh = try #require(login["refresh_token"]), user = try #require(login["user_id"])
            let key = try #require(try await s.call(.POST, Self.base + "/auth/api_keys", body: #"{"name":"k"}"#, bearer: refresh)["key"])
            let sessions = try #require(s.server.apps["myapp"]).sessions
            try await sessions.setUserDisabled(id: user, true)
            let keyLogin = try await s.call(.POST, Self.keyLogin, body: #"{"key":"\#(key)"}"#)
            #expect(keyLogin.status == 403 && keyLogin.errorCode == "UserDisabled")
            let refreshed = try await s.call(.POST, Self.base + "/auth/session", bearer: refresh)
            #expect(refreshed.status == 403 && refreshed.errorCode == "UserDisabled")
            let profile = try await s.call(.GET, Self.base + "/auth/profile", bearer: access)
            #expect(profile.status == 401 && profile.errorCode == "InvalidSession")
            try await sessions.setUserDisabled(id: user, false)
            #expect(try await s.call(.GET, Self.base + "/auth/profile", bearer: access).status == 200)
            #expect(try await s.call(.POST, Self.keyLogin, body: #"{"key":"\#(key)"}"#).status == 200)
        }
    }
}
