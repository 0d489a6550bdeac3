import Foundation
import JOSE
import NIOHTTP1
import Testing

@testable import AuthServer

/// The route table: what it describes is what it serves, and it applies the bearer and the
/// per-address limits of each row.
@Suite("Route table", .serialized)
struct RouteTableTests {
    static let metricsToken = "route-table-metrics-token-0123456789"
    static let apps =
        #"{ "myapp": { "providers": { "anon-user": {}, "api-key": {}, "local-userpass": { "min_password_length": 8, "auto_confirm": true } } } }"#
    static let prefix = LiveServer.base + "/app/myapp/auth/providers/local-userpass"

    /// A described path with its parameters filled in (`:app` the served app).
    static func concrete(_ path: String) -> String {
        path.replacingOccurrences(of: ":app", with: "myapp").replacingOccurrences(of: ":provider", with: "anon-user")
            .replacingOccurrences(of: ":id", with: "0123456789abcdef01234567")
    }

    @Test("the descriptions: one per method and path, every handler named, every path under / or the App Services base")
    func descriptionsAreWellFormed() {
        let all = RouteTable.descriptions
        #expect(all.count == RouteTable.rows.count && all.count >= 30)
        #expect(Set(all.map { "\($0.method.rawValue) \($0.path)" }).count == all.count, "a method and path twice")
        #expect(Set(all.map(\.handler)).count == all.count, "a handler name twice")
        for d in all {
            #expect(d.path.hasPrefix("/") && !d.handler.isEmpty)
            #expect(d.throttles.allSatisfy { $0.hasSuffix("_per_address") || $0.hasSuffix("_per_account") || $0.hasSuffix("_per_token") })
        }
        #expect(all.contains { $0.path == "/healthz" } && all.contains { $0.path == "/.well-known/jwks.json" })
        #expect(all.contains { $0.path == "/app/:app/reset" && $0.method == .post })
        let refresh = all.first { $0.method == .post && $0.path == RouteTable.base + "/auth/session" }
        #expect(refresh?.bearer == .refresh && refresh?.handler == "refresh")
    }

    @Test("every described route is served (no 404 NotFound), and any other method on its path is 405", arguments: StoreKind.available)
    func describedRoutesAreServed(kind: StoreKind) async throws {
        let extra = #""metrics_token_file": "metrics.token","#
        try await LiveServer.with(kind, apps: Self.apps, extra: extra, files: ["metrics.token": Self.metricsToken + "\n"]) { s in
            for d in RouteTable.descriptions {
                let method = NIOHTTP1.HTTPMethod(rawValue: d.method.rawValue)
                let bearer = d.path == "/metrics" ? Self.metricsToken : nil
                let body: String? = method == .POST || method == .PUT ? "{}" : nil
                let answer = try await s.call(method, Self.concrete(d.path), body: body, bearer: bearer)
                #expect(answer.status != 404 || answer.errorCode != "NotFound", "\(d.method) \(d.path): \(answer.status) \(answer.body.prefix(200))")
                #expect(answer.status != 405 && answer.status < 500, "\(d.method) \(d.path): \(answer.status) \(answer.body.prefix(200))")
                let other = try await s.call(.PATCH, Self.concrete(d.path))
                #expect(other.status == 405 && other.errorCode == "MethodNotAllowed", "PATCH \(d.path): \(other.status)")
            }
            let unknown = try await s.call(.GET, LiveServer.base + "/auth/nothing")
            #expect(unknown.status == 404 && unknown.errorCode == "NotFound")
        }
    }

    @Test("a row marked access or refresh refuses a request without a token: 401 InvalidSession, from the table", arguments: StoreKind.available)
    func bearerIsAppliedByTheTable(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let marked = RouteTable.descriptions.filter { $0.bearer == .access || $0.bearer == .refresh }
            #expect(marked.count >= 12)
            for d in marked {
                let method = NIOHTTP1.HTTPMethod(rawValue: d.method.rawValue)
                let answer = try await s.call(method, Self.concrete(d.path), body: method == .POST ? "{}" : nil)
                #expect(answer.status == 401 && answer.errorCode == "InvalidSession", "\(d.method) \(d.path): \(answer.status) \(answer.body)")
            }
            // The wrong kind of token is refused alike: an access token where a refresh token is due.
            let login = try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
            let access = try #require(login["access_token"])
            for d in RouteTable.descriptions where d.bearer == .refresh && d.handler != "logout" {
                let method = NIOHTTP1.HTTPMethod(rawValue: d.method.rawValue)
                let answer = try await s.call(method, Self.concrete(d.path), body: method == .POST ? "{}" : nil, bearer: access)
                #expect(answer.status == 401 && answer.errorCode == "InvalidSession", "\(d.method) \(d.path): \(answer.status)")
            }
            #expect(try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: access).status == 200)
        }
    }

    @Test("a limit the table counts answers 429 with Retry-After; a malformed request is refused first, uncounted", arguments: StoreKind.available)
    func throttleIsAppliedByTheTable(kind: StoreKind) async throws {
        let row = try #require(RouteTable.descriptions.first { $0.handler == "register" })
        #expect(row.throttles == ["register_per_address"])
        let limits = #""limits": {"register_per_address": "2/5m"},"#
        try await LiveServer.with(kind, apps: Self.apps, extra: limits) { s in
            func register(_ body: String) async throws -> LiveServer.Answer { try await s.call(.POST, Self.prefix + "/register", body: body) }
            for _ in 0..<3 { #expect(try await register(#"{"email": 7}"#).status == 400) }
            for n in 0..<2 {
                #expect(try await register(AccountRoutesTests.json(["email": "r\(n)@example.com", "password": "long enough"])).status == 201)
            }
            let refused = try await register(AccountRoutesTests.json(["email": "r2@example.com", "password": "long enough"]))
            #expect(refused.status == 429 && refused.errorCode == "TooManyRequests", "\(refused.body)")
            #expect((Int(refused.header("Retry-After") ?? "") ?? 0) > 0)
            // Still read before it is counted: a malformed body is 400, not 429.
            #expect(try await register(#"{"email": 7}"#).status == 400)
        }
    }

    @Test(
        "the login's limits are the table's: login_per_address, then the method's own; a malformed login is refused uncounted",
        arguments: StoreKind.available)
    func loginLimitsAreTheTables(kind: StoreKind) async throws {
        let row = try #require(RouteTable.descriptions.first { $0.handler == "login" })
        #expect(row.throttles == ["login_per_address", "anonymous_per_address", "failed_login_per_account"])
        let limits = #""limits": {"login_per_address": "3/5m", "anonymous_per_address": "1/5m"},"#
        try await LiveServer.with(kind, apps: Self.apps, extra: limits) { s in
            let anon = LiveServer.base + "/app/myapp/auth/providers/anon-user/login"
            // Refused before the table counts: an unknown provider, a body that is not JSON.
            #expect(try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/nope/login", body: "{}").status == 404)
            for _ in 0..<3 { #expect(try await s.call(.POST, anon, body: "[not json").status == 400) }
            // anonymous_per_address (1) is the anon-user method's; login_per_address (3) every login's.
            #expect(try await s.call(.POST, anon, body: "{}").status == 200)
            let anonymous = try await s.call(.POST, anon, body: "{}")
            #expect(anonymous.status == 429 && (Int(anonymous.header("Retry-After") ?? "") ?? 0) > 0, "\(anonymous.body)")
            let key = #"{"key": "not-a-key-0123456789"}"#
            #expect(try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/api-key/login", body: key).status == 401)
            let third = try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/api-key/login", body: key)
            #expect(third.status == 429 && third.errorCode == "TooManyRequests", "\(third.body)")
        }
    }

    @Test(
        "a plain handler's row counts the limits it names: each is 429 with Retry-After past login_per_address (the second step, the passkey options)",
        arguments: StoreKind.available)
    func plainRowsCountTheirLimits(kind: StoreKind) async throws {
        // Which rows these are comes from the table itself: a plain handler with limits the table counts.
        let plain = try await LiveServer.with(kind, apps: Self.apps) { s in
            let groups = RouteGroups(server: s.server)
            return RouteTable.rows.filter { row in
                guard !row.throttles.filter(\.byTable).isEmpty, case .plain = row.handler(groups) else { return false }
                return true
            }
        }
        #expect(
            Set(plain.map(\.name)) == ["loginSecondFactor", "loginSecondFactorPasskeyOptions", "passkeyLoginOptions", "loginPagePasskeyOptions"],
            "\(plain.map(\.name))")
        for row in plain {
            #expect(row.throttles.map(\.name) == ["login_per_address"], "\(row.name)")
            try await LiveServer.with(kind, apps: Self.apps, extra: #""limits": {"login_per_address": "3/1h"},"#) { s in
                let path = Self.concrete(row.path).replacingOccurrences(of: "anon-user", with: "passkey")
                var statuses: [Int] = []
                for _ in 0..<4 { statuses.append(try await s.call(.POST, path, body: "{}").status) }
                #expect(!statuses.prefix(3).contains(429) && statuses[3] == 429, "\(row.name): \(statuses)")
                let last = try await s.call(.POST, path, body: "{}")
                #expect(last.status == 429 && (Int(last.header("Retry-After") ?? "") ?? 0) > 0, "\(row.name)")
            }
        }
    }

    @Test("every limit a registered login method declares is named in the login row, and counted by the table")
    func everyLoginMethodLimitIsInTheRow() throws {
        let row = try #require(RouteTable.rows.first { $0.name == "login" })
        let named = Set(row.throttles.filter(\.byTable).map(\.name))
        for method in LoginMethodRegistry.standard.methods {
            for throttle in method.throttles {
                #expect(named.contains(throttle.limitName), "\(method.name) declares \(throttle.limitName), which the login row does not name")
            }
        }
        #expect(LoginMethodRegistry.standard.methods.contains { !$0.throttles.isEmpty }, "a method declares a limit (the check can fail)")
    }
}
