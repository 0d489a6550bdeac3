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
}
