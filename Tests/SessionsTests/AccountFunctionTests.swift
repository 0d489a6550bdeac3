import Foundation
import Identity
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// `confirmThroughFunction` and `resetThroughFunction` with the function as a closure, on every
/// store: what each verdict and each kind of error leaves behind.
@Suite struct AccountFunctionTests {
    @Test(arguments: StoreKind.available)
    func refusalSpendsTheTokenAFailureLeavesIt(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let a = try AccountTests.accounts(t.store, TestClock())
            _ = try await AccountTests.registered(a, "five@example.com", "first password")
            _ = try await AccountTests.registered(a, "four@example.com", "first password")

            // A failure (5xx, timeout): the error goes up, the token stays usable.
            var handed: AccountToken?
            let failed = await Conformance.code {
                try await a.confirmThroughFunction(email: "five@example.com") { token in
                    handed = token
                    throw TokenError(.customFunctionFailed, "HTTP 500")
                }
            }
            #expect(failed == "function_failed")
            let kept = try #require(handed)
            #expect(kept.purpose == .confirm && kept.email == "five@example.com")
            #expect(try await a.confirm(token: kept.token, tokenID: kept.tokenID) == kept.accountID)

            // A 4xx: refused, and the token is spent.
            let refused = await Conformance.code {
                try await a.resetThroughFunction(email: "four@example.com", newPassword: "second password") { token in
                    handed = token
                    throw TokenError(.customFunctionRefused, "no")
                }
            }
            #expect(refused == "function_refused")
            let spent = try #require(handed)
            #expect(spent.purpose == .reset)
            #expect(
                await Conformance.code { try await a.resetPassword(token: spent.token, tokenID: spent.tokenID, newPassword: "third password") }
                    == "userpass_token_invalid")

            // Nothing to act on (already confirmed, unknown): the function is called with a token
            // that was never stored, and its verdict is answered as for an account.
            var given: [AccountToken] = []
            let outcome = try await a.confirmThroughFunction(email: "five@example.com") { token in
                given.append(token); return .success
            }
            #expect(outcome == .noAccount && given.count == 1, "already confirmed")
            let unknown = try await a.resetThroughFunction(email: "six@example.com", newPassword: "second password") { token in
                given.append(token); return .pending
            }
            #expect(unknown == .noAccount && given.count == 2)
            #expect(given[1].purpose == .reset && given[1].email == "six@example.com" && given[1].token.count == spent.token.count)
            #expect(await Conformance.code { try await a.confirm(token: given[0].token, tokenID: given[0].tokenID) } == "userpass_token_invalid")
            #expect(
                await Conformance.code { try await a.resetPassword(token: given[1].token, tokenID: given[1].tokenID, newPassword: "third password") }
                    == "userpass_token_invalid")
            #expect(await Conformance.code { try await a.confirmThroughFunction(email: "seven@example.com") { _ in .fail } } == "function_refused")
            #expect(
                await Conformance.code {
                    try await a.confirmThroughFunction(email: "seven@example.com") { _ in throw TokenError(.customFunctionFailed, "HTTP 500") }
                } == "function_failed")
            #expect(await Conformance.code { try await a.confirmThroughFunction(email: "not an email") { _ in .success } } == "invalid_email")
            #expect(
                await Conformance.code { try await a.resetThroughFunction(email: "four@example.com", newPassword: "short") { _ in .success } }
                    == "invalid_password")
        }
    }
}
