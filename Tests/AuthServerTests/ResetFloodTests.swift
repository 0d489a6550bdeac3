import AsyncHTTPClient
@testable import AuthServer
import Foundation
import JOSE
import NIOCore
@_spi(Testing) import Sessions
import Synchronization
import Testing

/// Unauthenticated password work: a made-up reset token costs no scrypt, both reset routes are
/// throttled, and new passwords hash on a budget apart from sign-ins'.
@Suite("Password reset flood and hashing budgets", .serialized)
struct ResetFloodTests {
    static let prefix = AccountRoutesTests.prefix
    static let apps = #"{ "myapp": { "providers": { "local-userpass": { "auto_confirm": true, "min_password_length": 8 } } } }"#
    static let generous =
        #""limits": {"login_per_address": "100000/5m", "register_per_address": "100000/5m", "reset_per_address": "100000/5m", "reset_per_token": "100000/5m"},"#
    static let login = AccountRoutesTests.json(["username": "ada@example.com", "password": "the right password"])

    /// A reset with a token nobody issued.
    static func bogusReset() -> String {
        AccountRoutesTests.json([
            "token": Base64URL.encode(Array(UUID().uuidString.utf8)), "tokenId": UUID().uuidString, "password": "a new password",
        ])
    }

    /// `clients` loops POSTing `body()` to `path` through a client of their own (one connection
    /// each) for `seconds`; the statuses they got.
    static func flood(_ s: LiveServer, _ path: String, clients: Int, seconds: Double, _ body: @escaping @Sendable () -> String) async throws -> [Int:
        Int]
    {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = clients
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let statuses = StatusCounts()
        let deadline = ContinuousClock.now + .seconds(seconds)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<clients {
                group.addTask {
                    for _ in 0..<200 where ContinuousClock.now < deadline {
                        var request = HTTPClientRequest(url: s.baseURL + path)
                        request.method = .POST
                        request.body = .bytes(ByteBuffer(string: body()))
                        var status = 0
                        if let response = try? await client.execute(request, timeout: .seconds(30)) {
                            _ = try? await response.body.collect(upTo: 1 << 20)
                            status = Int(response.status.code)
                        }
                        statuses.counts.withLock { $0[status, default: 0] += 1 }
                    }
                }
            }
        }
        try await client.shutdown()
        return statuses.counts.withLock { $0 }
    }

    /// Registers the sign-ins' account, then five sign-ins one after another while `load` runs; each must be 200 within `bound` (generous:
    /// `make test` runs every suite at once on two cores; before the fixes they were 503 at once).
    static func loginsBeside(_ s: LiveServer, bound: Duration, _ load: @escaping @Sendable () async throws -> [Int: Int]) async throws -> [Int: Int] {
        let created = try await s.call(
            .POST, prefix + "/register", body: AccountRoutesTests.json(["email": "ada@example.com", "password": "the right password"]))
        #expect(created.status == 201)
        let running = Task { try await load() }
        try await Task.sleep(for: .milliseconds(500))  // the flood in full swing
        for n in 0..<5 {
            let start = ContinuousClock.now
            let answer = try await s.call(.POST, prefix + "/login", body: login)
            let elapsed = ContinuousClock.now - start
            #expect(answer.status == 200, "login \(n) beside the flood: \(answer.status) \(answer.body)")
            #expect(elapsed < bound, "login \(n) beside the flood took \(elapsed.seconds) s")
        }
        return try await running.value
    }

    @Test("40 clients of made-up resets: 400 without a hash or shed, and sign-ins beside them answer in time", arguments: StoreKind.available)
    func bogusResetFlood(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps, extra: Self.generous) { s in
            let statuses = try await Self.loginsBeside(s, bound: .seconds(15)) {
                try await Self.flood(s, Self.prefix + "/reset", clients: 40, seconds: 3, Self.bogusReset)
            }
            // Past their own budget (a quarter of max_in_flight) resets are shed at once, with Retry-After.
            #expect(Set(statuses.keys).isSubset(of: [400, 503]), "\(statuses)")
            #expect(statuses[400, default: 0] >= 1, "\(statuses)")
        }
    }

    @Test("a made-up or used reset token, by the API or the page, costs no scrypt", arguments: StoreKind.available)
    func noHashForADeadToken(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps, extra: Self.generous) { s in
            let manager = try #require(s.server.accounts["myapp"]?.manager)
            let before = await manager.hasher.derivations() + manager.newPasswordHasher.derivations()
            let api = try await s.call(.POST, Self.prefix + "/reset", body: Self.bogusReset())
            #expect(api.status == 400 && api.errorCode == "UserpassTokenInvalid")
            let page = try await s.call(
                .POST, "/app/myapp/reset", body: "token=abc&tokenId=def&password=a+new+password&confirm=a+new+password",
                headers: [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(page.status == 400 && page.body.contains("This link is not valid"))
            let after = await manager.hasher.derivations() + manager.newPasswordHasher.derivations()
            #expect(after == before, "\(after - before) scrypt calls for dead tokens")
        }
    }

    @Test("reset and the reset page are throttled per client address and per tokenId, together", arguments: StoreKind.available)
    func resetsAreThrottled(kind: StoreKind) async throws {
        let extra = #""limits": {"reset_per_address": "5/5m", "reset_per_token": "3/15m"},"#
        try await LiveServer.with(kind, apps: Self.apps, extra: extra) { s in
            func reset(_ tokenID: String, page: Bool = false) async throws -> LiveServer.Answer {
                if page {
                    return try await s.call(
                        .POST, "/app/myapp/reset", body: "token=abc&tokenId=\(tokenID)&password=a+new+password&confirm=a+new+password",
                        headers: [("Content-Type", "application/x-www-form-urlencoded")])
                }
                return try await s.call(
                    .POST, Self.prefix + "/reset", body: AccountRoutesTests.json(["token": "abc", "tokenId": tokenID, "password": "a new password"]))
            }
            #expect(try await reset("one").status == 400)
            #expect(try await reset("one", page: true).status == 400)
            #expect(try await reset("one").status == 400)
            // The hosted form answers a person: the form again, saying how long to wait, as a page.
            let perToken = try await reset("one", page: true)
            #expect(perToken.status == 429 && perToken.header("Content-Type")?.hasPrefix("text/html") == true, "\(perToken.body)")
            #expect(perToken.body.contains("Too many attempts") && perToken.body.contains("<form"), "\(perToken.body)")
            #expect(Int(perToken.header("Retry-After") ?? "") ?? 0 > 0)
            #expect(perToken.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            let perTokenAPI = try await reset("one")
            #expect(perTokenAPI.status == 429 && perTokenAPI.errorCode == "TooManyRequests", "\(perTokenAPI.body)")
            let perAddress = try await reset("three")  // another link: the sixth from this address
            #expect(perAddress.status == 429 && perAddress.errorCode == "TooManyRequests", "\(perAddress.body)")
        }
    }

    @Test("40 clients registering (each a scrypt): sign-ins beside them answer in time", arguments: StoreKind.available)
    func registrationsDoNotStarveSignIns(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps, extra: Self.generous) { s in
            let statuses = try await Self.loginsBeside(s, bound: .seconds(15)) {
                try await Self.flood(s, Self.prefix + "/register", clients: 40, seconds: 3) {
                    AccountRoutesTests.json(["email": UUID().uuidString + "@example.com", "password": "a new password"])
                }
            }
            // Registrations past their budget or the hashing queue are refused at once (503, 429),
            // never queued behind sign-ins.
            #expect(Set(statuses.keys).isSubset(of: [201, 429, 503]), "\(statuses)")
            #expect(statuses[201, default: 0] >= 1, "\(statuses)")
        }
    }
}

/// Statuses seen by concurrent clients.
final class StatusCounts: Sendable {
    let counts = Mutex<[Int: Int]>([:])
}
