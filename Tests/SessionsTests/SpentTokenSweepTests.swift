import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The documented sweep (`purge`) erases what a spent token can still open once the grace
/// interval is over, and keeps what reuse detection needs, on every store.
@Suite struct SpentTokenSweepTests {
    @Test(arguments: StoreKind.available)
    func sweepErasesSealedSuccessorsAfterTheGraceInterval(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = Conformance.manager(t.store, clock, grace: 10)
            let first = try await Conformance.firstPair(sessions)
            let second = try await sessions.refresh(first.refreshToken)
            // Within the grace interval the sweep keeps the successor: the retry still works.
            clock.advance(10)
            #expect(try await sessions.purge().spentSuccessors == 0)
            #expect(try await sessions.refresh(first.refreshToken).refreshToken == second.refreshToken)
            clock.advance(1)
            #expect(try await sessions.purge().spentSuccessors == 1)
            let spent = try #require(try await Conformance.record(t.store, of: first.refreshToken))
            #expect(spent.sealedSuccessor == nil && spent.successorHash == nil && spent.usedAt != nil)
            #expect(try await sessions.purge().spentSuccessors == 0)
            // The spent row stays while its session lives: presenting it again is still reuse.
            #expect(await Conformance.code { try await sessions.refresh(first.refreshToken) } == "refresh_token_reused")
        }
    }

    /// Two apps on one service: the store-wide sweep takes the largest grace, and each app's
    /// retries still follow its own.
    @Test(arguments: StoreKind.available)
    func serviceSweepKeepsTheLargestGraceOfItsApps(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let service = SessionService(store: t.store, configuration: SessionConfiguration.test(clock).service)
            func app(_ id: String, grace: Int64) -> SessionManager {
                var policy = AppSessionPolicy(audience: id, defaultClientID: id)
                policy.app = id
                policy.reuseGraceInterval = grace
                return SessionManager(service: service, policy: policy)
            }
            let hasty = app("hasty", grace: 2), patient = app("patient", grace: 30)
            let a = try await Conformance.firstPair(hasty, user: "a"), b = try await Conformance.firstPair(patient, user: "b")
            let a2 = try await hasty.refresh(a.refreshToken), b2 = try await patient.refresh(b.refreshToken)
            clock.advance(10)
            #expect(try await service.sweep(grace: 30).spentSuccessors == 0)
            #expect(try await patient.refresh(b.refreshToken).refreshToken == b2.refreshToken)
            #expect(await Conformance.code { try await hasty.refresh(a.refreshToken) } == "refresh_token_reused")
            #expect(await Conformance.code { try await hasty.refresh(a2.refreshToken) } == "refresh_token_revoked")
            // Past the largest grace the sweep erases the successor, and a retry is reuse.
            clock.advance(21)
            #expect(try await service.sweep(grace: 30).spentSuccessors >= 1)
            #expect(await Conformance.code { try await patient.refresh(b.refreshToken) } == "refresh_token_reused")
        }
    }
}
