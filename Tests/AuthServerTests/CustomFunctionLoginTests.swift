import Foundation
import JOSE
import ProviderStandIn
import Testing

/// The `custom-function` login (docs/identity.md) over HTTP, with a stand-in function on 127.0.0.1.
@Suite("custom-function login over HTTP", .serialized)
struct CustomFunctionLoginTests {
    static let secret = "function-secret-0123456789abcdef-0123456789"

    static func with(_ kind: StoreKind, _ body: (LiveServer, FunctionStandIn) async throws -> Void) async throws {
        let function = try await FunctionStandIn.start(secret: Array(secret.utf8))
        do {
            let apps = #"{ "fnapp": { "providers": { "custom-function": { "url": "\#(function.url)", "secret_file": "fn.secret" } } } }"#
            try await LiveServer.with(kind, apps: apps, files: ["fn.secret": secret + "\n"]) { s in try await body(s, function) }
            try await function.shutdown()
        } catch {
            try? await function.shutdown()
            throw error
        }
    }

    static let login = LiveServer.base + "/app/fnapp/auth/providers/custom-function/login"

    @Test("the function's id signs in; the body it gets is signed and has no options", arguments: StoreKind.available)
    func accepted(kind: StoreKind) async throws {
        try await Self.with(kind) { s, function in
            let body = #"{"user":"ada","name":"Ada Lovelace","email":"ada@example.com","options":{"device":{"platform":"test"}}}"#
            let first = try await s.call(.POST, Self.login, body: body)
            #expect(first.status == 200, "\(first.body)")
            #expect(first["access_token"] != nil && first["refresh_token"] != nil)
            #expect(first.header("cache-control") == "no-store")
            let again = try await s.call(.POST, Self.login, body: #"{"user":"ada"}"#)
            #expect(again.status == 200 && again["user_id"] == first["user_id"], "one identity, one user")

            let sent = try #require(function.received.first)
            #expect(function.signatureIsValid(sent.header("X-TokenTool-Signature"), body: sent.body, purpose: "login"))
            let forwarded = try #require(try JSONValue(parsing: String(decoding: sent.body, as: UTF8.self)).objectValue)
            #expect(Set(forwarded.keys) == ["user", "name", "email"])

            let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: first["access_token"])
            let identities = profile.object["identities"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(identities.contains { $0["id"] == "ada" && $0["provider_type"] == "custom-function" }, "\(profile.body)")
        }
    }

    @Test("realm-web's canonical Extended JSON reaches the function relaxed; its device id stays with the session", arguments: StoreKind.available)
    func extendedJSON(kind: StoreKind) async throws {
        try await Self.with(kind) { s, function in
            let body = #"""
                {"user":"ada","age":{"$numberInt":"36"},"score":{"$numberDouble":"2.5"},"since":{"$date":{"$numberLong":"1356351330501"}},
                 "options":{"device":{"platform":"node","sdkVersion":"2.0.1","deviceId":{"$oid":"65a1b2c3d4e5f60718293a4b"}}}}
                """#
            let login = try await s.call(.POST, Self.login, body: body)
            #expect(login.status == 200 && login["device_id"] == "65a1b2c3d4e5f60718293a4b", "\(login.body)")
            let sent = try #require(function.received.last)
            let forwarded = try JSONValue(parsing: String(decoding: sent.body, as: UTF8.self))
            #expect(
                forwarded
                    == .object(["user": "ada", "age": .int(36), "score": .double(2.5), "since": .object(["$date": "2012-12-24T12:15:30.501Z"])]))
        }
    }

    @Test("4xx: 401 AuthError with the function's words; 5xx or a bad answer: 502 FunctionExecutionError", arguments: StoreKind.available)
    func refusedAndFailed(kind: StoreKind) async throws {
        try await Self.with(kind) { s, _ in
            let refused = try await s.call(.POST, Self.login, body: #"{"user":"refuse"}"#)
            #expect(refused.status == 401 && refused.errorCode == "AuthError")
            #expect(refused["error"]?.contains("no such user") == true, "\(refused.body)")
            for user in ["crash", "not-json", "no-id", "huge"] {
                let failed = try await s.call(.POST, Self.login, body: #"{"user":"\#(user)"}"#)
                #expect(failed.status == 502 && failed.errorCode == "FunctionExecutionError", "\(user): \(failed.body)")
            }
        }
    }

    @Test("a login body shaped like a reset/call is signed as a login: it is no reset call", arguments: StoreKind.available)
    func purposeIsSigned(kind: StoreKind) async throws {
        try await Self.with(kind) { s, function in
            // What the function gets from reset/call, but written by a client as a login body.
            let forged = #"{"type":"reset","app":"fnapp","email":"victim@example.com","token":"attacker-token","tokenId":"attacker-id"}"#
            _ = try await s.call(.POST, Self.login, body: forged)
            let sent = try #require(function.received.last)
            let header = sent.header("X-TokenTool-Signature")
            #expect(header?.contains(",p=login,") == true, "\(header ?? "no signature")")
            #expect(function.signatureIsValid(header, body: sent.body, purpose: "login"))
            #expect(!function.signatureIsValid(header, body: sent.body, purpose: "reset"), "a login's signature verifies as a reset call")
        }
    }
}
