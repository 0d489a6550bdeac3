import CLIHarness
import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// A passkey beside TOTP in `SessionManager`, on every store: the recovery codes outlive TOTP
/// while a passkey remains and die with the last factor; a pending enrolment's secret is never a
/// sign-in's factor. Codes computed by Debian's oathtool.
@Suite(.enabled(if: ExternalTool.oathtool, "oathtool is missing (apt-get install oathtool; make deps installs it)"))
struct PasskeyFactorTests {
    typealias F = MFAFactorsTests

    @Test(
        "TOTP off keeps the recovery codes beside a passkey, and they still answer; a pending secret's code is refused; the last passkey takes them",
        arguments: StoreKind.available)
    func recoveryCodesBesideAPasskey(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = try await F.manager(t.store, clock)
            let secret = try await sessions.beginTOTP(userID: "u1", issuer: "app-a", email: "ada@example.com").secret
            let codes = try await sessions.confirmTOTP(userID: "u1", code: try await ExternalTool.oathtoolCode(secret, at: clock.now)).1
            let passkey = PasskeyRecord(
                id: "pk1", app: "app-a", userID: "u1", name: "laptop", publicKey: "{}", algorithm: "ES256", signCount: 0, createdAt: clock.now)
            #expect(try await t.store.transaction { tx in try await tx.insertPasskey(passkey) })
            #expect(try await sessions.mfaStatus(userID: "u1") == MFAStatus(totp: true, passkeys: 1, recoveryCodesLeft: 10))

            #expect(try await sessions.disableTOTP(userID: "u1", code: codes[0]) == .accepted)
            #expect(try await sessions.mfaStatus(userID: "u1") == MFAStatus(totp: false, passkeys: 1, recoveryCodesLeft: 9))
            #expect(try await sessions.hasSecondFactor(userID: "u1"))
            let checkOnly: @Sendable (inout MFAFactorsRecord, any SessionStoreTransaction) async throws -> Void = { _, _ in }
            #expect(try await sessions.checkMFA(userID: "u1", code: .either(codes[1]), accepted: checkOnly) == .accepted)

            // A new enrolment, pending: its code confirms it, but is no sign-in's second factor before that.
            let pending = try await sessions.beginTOTP(userID: "u1", issuer: "app-a", email: "ada@example.com").secret
            let pendingCode = try await ExternalTool.oathtoolCode(pending, at: clock.now)
            #expect(try await sessions.checkMFA(userID: "u1", code: .either(pendingCode), accepted: checkOnly) == .refused)
            #expect(try await sessions.checkMFA(userID: "u1", code: .totp(pendingCode), accepted: checkOnly) == .refused)

            // The last passkey gone (TOTP still pending): the recovery codes go with it.
            #expect(try await sessions.deletePasskey(userID: "u1", id: "pk1"))
            #expect(try await sessions.mfaStatus(userID: "u1") == MFAStatus(totp: false, passkeys: 0, recoveryCodesLeft: 0))
            #expect(!(try await sessions.hasSecondFactor(userID: "u1")))
            let row = try await t.store.read { tx in try await tx.mfaFactors(app: "app-a", userID: "u1", forUpdate: false) }
            #expect(row?.recoveryCodes == [])
        }
    }
}
