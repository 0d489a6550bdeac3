import Foundation
import Synchronization
import Testing
@testable import AuthServer
@testable import Sessions
import OIDCProvider

/// A second use of an authorization code that lands right after the first use's redemption
/// committed, on both stores: it must still end the session the first use gets.
@Suite("OIDC code reuse race", .serialized)
struct OIDCCodeRaceTests {
    @Test(
        "a second use right after the first use's redemption committed ends the first use's session: its access and refresh tokens stop working",
        arguments: StoreKind.available)
    func reuseRightAfterRedemption(kind: StoreKind) async throws {
        let hook = AfterRedemptionStore.Hook()
        let wrap: @Sendable (any SessionStore) -> any SessionStore = { AfterRedemptionStore($0, hook: hook) }
        try await LiveServer.with(kind, apps: OIDCTokenFixture.apps, extra: OIDCTokenFixture.extra, files: OIDCTokenFixture.files, wrapStore: wrap) {
            s in
            let user = try await OIDCTokenFixture.user(s)
            let code = try await OIDCTokenFixture.code(s, user: user)
            let second = Mutex<LiveServer.Answer?>(nil)
            hook.arm(code: code.code, app: "myapp") {
                let answer = try await OIDCTokenFixture.exchange(s, code)
                second.withLock { $0 = answer }
            }
            let first = try await OIDCTokenFixture.exchange(s, code)
            #expect(first.status == 200, "\(first.body)")
            let reuse = try #require(second.withLock { $0 }, "the second use ran after the redemption committed")
            OIDCTokenTests.expectError(reuse, 400, "invalid_grant")
            let access = try #require(first["access_token"]), refresh = try #require(first["refresh_token"])
            #expect(try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: access).status == 401)
            #expect(try await s.call(.GET, "/oauth/userinfo", bearer: access).status == 401)
            OIDCTokenTests.expectError(
                try await s.form("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: [OIDCTokenFixture.basic()]),
                400, "invalid_grant")
            #expect(try await s.server.service.session(id: code.sessionID)?.revokedAt != nil)
        }
    }
}

/// A store that, once armed, runs a hook right after the first transaction that leaves an
/// authorization code used commits (before whatever the caller does next).
final class AfterRedemptionStore: SessionStore {
    /// What to run, and after which code's redemption.
    final class Hook: Sendable {
        private let armed = Mutex<(code: String, app: String, run: @Sendable () async throws -> Void)?>(nil)
        func arm(code: String, app: String, _ run: @escaping @Sendable () async throws -> Void) { armed.withLock { $0 = (code, app, run) } }
        var target: (code: String, app: String)? { armed.withLock { $0.map { ($0.code, $0.app) } } }
        /// The hook, taken at most once.
        func take() -> (@Sendable () async throws -> Void)? {
            armed.withLock { value in
                defer { value = nil }
                return value?.run
            }
        }
    }

    let inner: any SessionStore
    let hook: Hook
    init(_ inner: any SessionStore, hook: Hook) {
        self.inner = inner
        self.hook = hook
    }

    func transaction<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T {
        let result = try await inner.transaction(body)
        if let target = hook.target,
            try await inner.read({ tx in try await tx.lookUpOneTimeToken(target.code, purpose: .authorizationCode, app: target.app)?.usedAt }) != nil,
            let run = hook.take()
        {
            try await run()
        }
        return result
    }
    func read<T: Sendable>(_ body: @Sendable (any SessionStoreTransaction) async throws -> T) async throws -> T { try await inner.read(body) }
    func schemaVersion() async throws -> Int { try await inner.schemaVersion() }
    func close() async throws { try await inner.close() }
    func countThrottleEvent(key: String, since: Int64, limit: Int, at time: Int64, expiresAt: Int64, record: Bool) async throws -> (
        count: Int, oldest: Int64?
    ) {
        try await inner.countThrottleEvent(key: key, since: since, limit: limit, at: time, expiresAt: expiresAt, record: record)
    }
}

extension AuthServer {
    /// This server on `store` (a wrapper of its own): its service and apps' sessions use it.
    func replacingStore(with store: any SessionStore) -> AuthServer {
        let service = SessionService(store: store, configuration: self.service.configuration)
        let apps = self.apps.mapValues { AppRuntime(config: $0.config, sessions: SessionManager(service: service, policy: $0.sessions.policy)) }
        return AuthServer(
            config: config, store: store, service: service, apps: apps, appIDs: appIDs, sweepGrace: sweepGrace,
            createdMasterKeyFile: createdMasterKeyFile, loginMethods: loginMethods, accounts: accounts, transport: transport, metrics: metrics,
            logger: logger, background: background, inFlight: inFlight, connections: connections, passwordWork: passwordWork,
            passwordSlots: passwordSlots)
    }
}
