import Foundation
import Testing

@testable import AuthServer

/// The password hasher is shared fairly between client addresses (the contract's "Email/password
/// accounts"): at most 2 password checks of one address are in flight at once, one more is 429
/// `TooManyRequests` with `Retry-After` at once, never queued; another address's sign-in is not
/// refused meanwhile. Two addresses through `trusted_proxy_header`, over HTTP on both stores.
@Suite("Password checks shared fairly per address")
struct PasswordFairnessTests {
    static let apps = #"{ "myapp": { "providers": { "local-userpass": { "auto_confirm": true } } } }"#
    static let extra = #""trusted_proxy_header": "X-Forwarded-For", "trusted_proxies": ["127.0.0.1/32"], "limits": {"login_per_address": "1000/1m", "failed_login_per_account": "1000/1m"},"#
    static let login = LiveServer.base + "/app/myapp/auth/providers/local-userpass/login"

    static func attempt(_ s: LiveServer, from address: String, password: String) async throws -> LiveServer.Answer {
        try await s.call(
            .POST, login, body: AccountRoutesTests.json(["username": "ann@example.com", "password": password]),
            headers: [("X-Forwarded-For", address)])
    }

    @Test("twelve concurrent logins from one address: at most two hashed, the rest 429 at once; another address signs in", arguments: StoreKind.available)
    func oneAddressCannotHoldTheHasher(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps, extra: Self.extra) { s in
            let registered = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/register",
                body: AccountRoutesTests.json(["email": "ann@example.com", "password": "the right password"]))
            #expect(registered.status == 201)
            let (flood, other) = try await withThrowingTaskGroup(of: (String, LiveServer.Answer).self) { group in
                for _ in 0..<12 { group.addTask { ("flood", try await Self.attempt(s, from: "203.0.113.7", password: "wrong password 1")) } }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(20))
                    return ("other", try await Self.attempt(s, from: "198.51.100.9", password: "the right password"))
                }
                var flood: [LiveServer.Answer] = [], other: [LiveServer.Answer] = []
                for try await (who, answer) in group { if who == "flood" { flood.append(answer) } else { other.append(answer) } }
                return (flood, other)
            }
            let refused = flood.filter { $0.status == 429 }
            #expect(refused.count >= 1, "no flood login was refused: \(flood.map(\.status))")
            #expect(flood.allSatisfy { $0.status == 429 || ($0.status == 401 && $0.errorCode == "AuthError") }, "\(flood.map(\.status))")
            #expect(refused.allSatisfy { $0.errorCode == "TooManyRequests" && $0.header("Retry-After") == "1" })
            // The other address is never refused for the first one's load.
            #expect(other.first?.status == 200 && other.first?["access_token"] != nil, "\(other.first?.status ?? 0) \(other.first?.body ?? "")")
            // Once the flood is over, the first address signs in again.
            #expect(try await Self.attempt(s, from: "203.0.113.7", password: "the right password").status == 200)
        }
    }
}
