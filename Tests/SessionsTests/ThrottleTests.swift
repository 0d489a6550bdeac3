import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Throttle counters in the store, and the `N/DURATION` rates, on every store.
@Suite struct ThrottleTests {
    @Test func ratesParse() throws {
        #expect(try RateLimit(parsing: "300/5m") == RateLimit(count: 300, window: 300))
        #expect(try RateLimit(parsing: "10/15m") == RateLimit(count: 10, window: 900))
        #expect(try RateLimit(parsing: "30/1h") == RateLimit(count: 30, window: 3600))
        #expect(try RateLimit(parsing: "5/2d") == RateLimit(count: 5, window: 172_800))
        #expect(try RateLimit(parsing: "1/1s") == RateLimit(count: 1, window: 1))
        for bad in ["", "5", "5/", "/5m", "0/5m", "-1/5m", "5/5", "5/5x", "5/0m", "5/m", "5/1.5h", "5/5m/1", "5/31d", "5/ 5m", "5/+5m", "5/٥m"] {
            #expect(throws: TokenError(.invalidConfiguration, "")) { try RateLimit(parsing: bad) }
        }
    }

    @Test(arguments: StoreKind.available)
    func anyWindowHoldsAtMostN(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t async throws in
            let clock = TestClock()
            let throttle = Throttle(store: t.store, clock: clock.tokenClock)
            let limit = RateLimit(count: 3, window: 60)
            #expect(try await throttle.hit("k", limit: limit) == .allowed)  // t = 0
            clock.advance(20)
            #expect(try await throttle.hit("k", limit: limit) == .allowed)  // t = 20
            #expect(try await throttle.hit("k", limit: limit) == .allowed)  // t = 20
            #expect(try await throttle.hit("k", limit: limit) == .refused(retryAfter: 40))
            #expect(try await throttle.hit("other", limit: limit) == .allowed)  // keys are separate
            clock.advance(39)  // t = 59: the first is still in the window
            #expect(try await throttle.check("k", limit: limit) == .refused(retryAfter: 1))
            clock.advance(1)  // t = 60: it has left
            #expect(try await throttle.check("k", limit: limit) == .allowed)
            #expect(try await throttle.hit("k", limit: limit) == .allowed)
            #expect(try await throttle.hit("k", limit: limit) == .refused(retryAfter: 20))
            // Purge removes only events whose window has passed.
            clock.advance(60)
            #expect(try await throttle.purge() >= 3)
            #expect(try await throttle.purge() == 0)
        }
    }

    @Test(arguments: StoreKind.available)
    func concurrentHitsNeverExceedTheLimit(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t async throws in
            let throttle = Throttle(store: t.store, clock: TestClock().tokenClock)
            let limit = RateLimit(count: 5, window: 3600)
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 { group.addTask { try await throttle.hit("mail:flood@example.com", limit: limit) == .allowed } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(allowed == 5)
        }
    }

    /// Two stores on one database (two server instances), and the driver's own counting beside the
    /// protocol's transaction of lock, count and insert (an older instance during an upgrade): 60
    /// countings at once against a limit of 7 let exactly 7 in, and the store holds exactly 7 events.
    @Test(arguments: StoreKind.available)
    func concurrentHitsFromTwoInstancesNeverExceedTheLimitNorLoseACount(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t async throws in
            let other = try await t.reopen(nil)
            let clock = TestClock()
            let limit = RateLimit(count: 7, window: 3600)
            let digest = Throttle.storedKey("anon_addr:203.0.113.7")
            let now = Throttle(store: t.store, clock: clock.tokenClock).now
            let stores = [t.store, other]
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for k in 0..<60 {
                    let store = stores[k % 2]
                    if k % 3 == 0 {
                        group.addTask {
                            try await store.transaction { tx in
                                try await tx.lockThrottleKey(digest)
                                let (count, _) = try await tx.throttleEvents(key: digest, since: now - limit.window + 1)
                                guard count < limit.count else { return false }
                                try await tx.insertThrottleEvent(key: digest, at: now, expiresAt: now + limit.window)
                                return true
                            }
                        }
                    } else {
                        group.addTask {
                            try await Throttle(store: store, clock: clock.tokenClock).hit("anon_addr:203.0.113.7", limit: limit) == .allowed
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try await other.close()
            #expect(allowed == 7)
            #expect(try await t.store.transaction { tx in try await tx.throttleEvents(key: digest, since: 0) }.count == 7)
            #expect(
                try await Throttle(store: t.store, clock: clock.tokenClock).check("anon_addr:203.0.113.7", limit: limit) == .refused(retryAfter: 3600)
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func keysAreStoredAsDigests(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t async throws in
            let throttle = Throttle(store: t.store, clock: TestClock().tokenClock)
            _ = try await throttle.hit("fail_acct:private@example.com", limit: RateLimit(count: 1, window: 60))
            let digest = Base64URL.encode(SHA2.sha256(Array("fail_acct:private@example.com".utf8)))
            #expect(try await t.store.transaction { tx in try await tx.throttleEvents(key: digest, since: 0) }.count == 1)
            #expect(try await t.store.transaction { tx in try await tx.throttleEvents(key: "fail_acct:private@example.com", since: 0) }.count == 0)
        }
    }
}

/// The hasher's bound on concurrent work.
@Suite struct PasswordHasherTests {
    @Test func queueIsBounded() async throws {
        let hasher = try PasswordHasher(parameters: Scrypt.Parameters(logN: 14, r: 8, p: 1), concurrency: 1, maxWaiting: 2)
        let codes = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<12 { group.addTask { await Conformance.code { try await hasher.hash("password") } } }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(codes.contains(nil))
        #expect(codes.contains("too_many_requests"))
        #expect(codes.allSatisfy { $0 == nil || $0 == "too_many_requests" })
    }

    @Test func verifiesNFCAndNFDAlike() async throws {
        let hasher = try PasswordHasher(parameters: Scrypt.Parameters(logN: 4, r: 8, p: 1))
        let stored = try await hasher.hash("caf\u{E9}")
        #expect(try await hasher.verify("cafe\u{301}", against: stored))
        #expect(try await !hasher.verify("cafe", against: stored))
        #expect(try await !hasher.verifyDummy("caf\u{E9}"))
    }

    @Test func badSettingsAreConfigurationErrors() {
        #expect(throws: TokenError(.invalidConfiguration, "")) { try PasswordHasher(concurrency: 0) }
        #expect(throws: TokenError(.invalidConfiguration, "")) { try PasswordHasher(parameters: Scrypt.Parameters(logN: 30, r: 8, p: 1)) }
    }
}
