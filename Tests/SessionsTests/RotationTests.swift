import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Rotation, reuse detection, the grace interval, concurrency and atomicity, on every store.
@Suite struct RotationTests {
    @Test(arguments: StoreKind.available)
    func eachRefreshRotates(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            var pair = try await Conformance.firstPair(sessions)
            let session = pair.sessionID
            var seen: Set<String> = [pair.refreshToken]
            for _ in 0..<5 {
                clock.advance(60)
                let previous = pair.refreshToken
                pair = try await sessions.refresh(previous)
                #expect(pair.sessionID == session)  // same session, new token
                #expect(seen.insert(pair.refreshToken).inserted)
                let old = try #require(try await Conformance.record(t.store, of: previous))
                #expect(old.usedAt == clock.now)
            }
            let f = try #require(try await Conformance.session(t.store, id: session))
            #expect(f.lastUsedAt == clock.now && f.revokedAt == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func reuseAfterGraceRevokesTheSession(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock, grace: 10)
            let first = try await Conformance.firstPair(sessions)
            let second = try await sessions.refresh(first.refreshToken)
            clock.advance(11)  // past the grace interval
            #expect(await Conformance.code { try await sessions.refresh(first.refreshToken) } == "refresh_token_reused")
            // The whole session is dead: the legitimate newest token too, and its access token on a live check.
            #expect(await Conformance.code { try await sessions.refresh(second.refreshToken) } == "refresh_token_revoked")
            #expect(await Conformance.code { try await sessions.verifyAccessToken(second.accessToken, checkSession: true) } == "session_revoked")
            let f = try #require(try await Conformance.session(t.store, id: first.sessionID))
            #expect(f.revokedAt == clock.now && f.revokeReason == "reuse")
            // Another session of the same user is untouched.
            let other = try await sessions.issueTokens(userID: "alice")
            _ = try await sessions.refresh(other.refreshToken)
        }
    }

    @Test(arguments: StoreKind.available)
    func withinGraceTheSameSuccessorIsReturned(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock, grace: 10)
            let first = try await Conformance.firstPair(sessions)
            let second = try await sessions.refresh(first.refreshToken)
            clock.advance(10)  // still within grace (inclusive)
            let retried = try await sessions.refresh(first.refreshToken)
            #expect(retried.refreshToken == second.refreshToken)  // same successor, not a new branch
            #expect(retried.sessionID == second.sessionID)
            // The successor is still the session's current token and rotates normally.
            let third = try await sessions.refresh(second.refreshToken)
            #expect(third.refreshToken != second.refreshToken)
            // `first` is no longer the immediate predecessor of the live token: reuse, even within its grace.
            #expect(await Conformance.code { try await sessions.refresh(first.refreshToken) } == "refresh_token_reused")
            #expect(await Conformance.code { try await sessions.refresh(third.refreshToken) } == "refresh_token_revoked")
        }
    }

    @Test(arguments: StoreKind.available)
    func aRevokedSessionStaysRevokedWithinGrace(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock, grace: 30)
            let first = try await Conformance.firstPair(sessions)
            let second = try await sessions.refresh(first.refreshToken)
            try await sessions.revoke(second.refreshToken)  // logout
            clock.advance(1)
            #expect(await Conformance.code { try await sessions.refresh(first.refreshToken) } == "refresh_token_revoked")
            #expect(await Conformance.code { try await sessions.refresh(second.refreshToken) } == "refresh_token_revoked")
            let f = try #require(try await Conformance.session(t.store, id: first.sessionID))
            #expect(f.revokeReason == "logout")
        }
    }

    @Test(arguments: StoreKind.available)
    func graceZeroMeansAnyReuseRevokes(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock, grace: 0)
            let first = try await Conformance.firstPair(sessions)
            clock.advance(5)
            _ = try await sessions.refresh(first.refreshToken)
            clock.advance(1)
            #expect(await Conformance.code { try await sessions.refresh(first.refreshToken) } == "refresh_token_reused")
        }
    }

    @Test(arguments: StoreKind.available)
    func fiftyConcurrentRefreshesRotateOnce(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            // Without grace: exactly one caller wins, every other one is refused.
            let strict = Conformance.manager(t.store, clock, grace: 0)
            let pair = try await Conformance.firstPair(strict)
            let results = await Self.concurrentRefreshes(strict, pair.refreshToken, count: 50)
            let winners = results.compactMap { try? $0.get() }
            #expect(winners.count == 1)
            let losers = results.compactMap { r -> String? in
                if case .failure(let e) = r { return e.code.rawValue }; return nil
            }
            #expect(losers.count == 49)
            #expect(losers.allSatisfy { $0 == "refresh_token_reused" || $0 == "refresh_token_revoked" })
            let spent = try #require(try await Conformance.record(t.store, of: pair.refreshToken))
            #expect(spent.successorHash == Base64URL.encode(SHA2.sha256(Array(winners[0].refreshToken.utf8))))

            // With grace: all fifty get the one successor (a client retrying in parallel).
            let lenient = Conformance.manager(t.store, clock, grace: 10)
            let fresh = try await lenient.issueTokens(userID: "alice")
            let all = await Self.concurrentRefreshes(lenient, fresh.refreshToken, count: 50)
            let tokens = Set(all.compactMap { try? $0.get().refreshToken })
            #expect(all.allSatisfy { (try? $0.get()) != nil })
            #expect(tokens.count == 1)
            let successor = try #require(tokens.first)
            let record = try #require(try await Conformance.record(t.store, of: successor))
            #expect(record.usedAt == nil && record.parentHash == Base64URL.encode(SHA2.sha256(Array(fresh.refreshToken.utf8))))
        }
    }

    static func concurrentRefreshes(_ sessions: SessionManager, _ token: String, count: Int) async -> [Result<TokenPair, TokenError>] {
        await withTaskGroup(of: Result<TokenPair, TokenError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do { return .success(try await sessions.refresh(token)) } catch let e as TokenError { return .failure(e) } catch {
                        return .failure(TokenError(.internalError, "\(error)"))
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    struct Crash: Error, Sendable {}

    @Test(arguments: StoreKind.available)
    func aFailureBetweenSpendingAndIssuingLosesNothing(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock)
            let pair = try await Conformance.firstPair(sessions)
            sessions.failAfterSpending(Crash())
            await #expect(throws: Crash.self) { try await sessions.refresh(pair.refreshToken) }
            // The spend was rolled back with the rest: the token is unspent, no successor exists.
            let record = try #require(try await Conformance.record(t.store, of: pair.refreshToken))
            #expect(record.usedAt == nil && record.successorHash == nil && record.sealedSuccessor == nil)
            let session = try #require(try await Conformance.session(t.store, id: pair.sessionID))
            #expect(session.revokedAt == nil && session.lastUsedAt == session.createdAt)
            // And the client's retry after the failure rotates normally.
            sessions.failAfterSpending(nil)
            clock.advance(60)  // well past any grace: a spent token would now revoke the session
            let next = try await sessions.refresh(pair.refreshToken)
            #expect(next.sessionID == pair.sessionID)
        }
    }

    @Test(arguments: StoreKind.available)
    func expiryAndPurge(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            var config = SessionConfiguration.test(clock)
            config.refreshAbsoluteLifetime = 1000
            config.refreshIdleLifetime = 300
            let sessions = SessionManager(store: t.store, configuration: config)
            let idle = try await Conformance.firstPair(sessions)
            var active = try await sessions.issueTokens(userID: "alice")
            let revoked = try await sessions.issueTokens(userID: "alice")
            try await sessions.revoke(revoked.refreshToken)
            for _ in 0..<3 {  // used every 250 s: the idle limit moves, the absolute one does not
                clock.advance(250)
                active = try await sessions.refresh(active.refreshToken)
            }
            #expect(await Conformance.code { try await sessions.refresh(idle.refreshToken) } == "refresh_token_expired")
            // The tokens spent at 250 and 500 are past the grace interval: their sealed successors go.
            #expect(try await sessions.purge() == PurgeCounts(sessions: 2, refreshTokens: 2, signingKeys: 0, spentSuccessors: 2))
            #expect(await Conformance.code { try await sessions.refresh(idle.refreshToken) } == "invalid_refresh_token")
            clock.advance(250)  // t = 1000: the absolute lifetime ends although the session is in use
            #expect(await Conformance.code { try await sessions.refresh(active.refreshToken) } == "refresh_token_expired")
            #expect(try await sessions.purge() == PurgeCounts(sessions: 1, refreshTokens: 4, signingKeys: 0))
            #expect(try await sessions.sessions(of: "alice").isEmpty)
        }
    }

    @Test(arguments: StoreKind.available)
    func unknownAndMalformedRefreshTokens(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            #expect(
                await Conformance.code { try await sessions.refresh(Base64URL.encode([UInt8](repeating: 7, count: 32))) } == "invalid_refresh_token")
            #expect(await Conformance.code { try await sessions.refresh("short") } == "invalid_refresh_token")
            #expect(
                await Conformance.code { try await sessions.revoke(Base64URL.encode([UInt8](repeating: 7, count: 32))) } == "invalid_refresh_token")
        }
    }
}
