import CLIHarness
import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// Second factors in the store (`mfa_factors`, schema step 15) and their rules in
/// `SessionManager` (enrolment, one use per code, recovery codes, the lock), on every store, with
/// an injected clock; codes computed by Debian's oathtool.
@Suite(.enabled(if: ExternalTool.oathtool, "oathtool is missing (apt-get install oathtool; make deps installs it)"))
struct MFAFactorsTests {
    static let master = [UInt8](repeating: 0x5A, count: 32)

    /// A manager of app `app` on `store` with a master key and `clock`, and a user `u1` of that app.
    static func manager(_ store: any SessionStore, _ clock: TestClock, app: String = "app-a") async throws -> SessionManager {
        var c = SessionConfiguration.test(clock)
        c.masterKey = master
        c.app = app
        let sessions = SessionManager(store: store, configuration: c)
        try await store.transaction { tx in try await tx.insertUser(UserRecord(id: "u1", createdAt: clock.now, app: app)) }
        return sessions
    }

    @Test(
        "schema 12 upgrades to the latest keeping its rows; the factors row is app-scoped, sealed, and goes with its user",
        arguments: StoreKind.available)
    func upgradeAndScope(kind: StoreKind) async throws {
        try await Harness.withStore(kind, migratingTo: 12) { t in
            try await t.executeRaw("INSERT INTO users (id, created_at, app) VALUES ('u-old', 100, 'app-a')")
            let store = try await t.reopen(nil)
            defer { Task { try? await store.close() } }
            #expect(try await store.schemaVersion() == SessionSchema.stepNames.count)
            #expect(try await store.transaction { tx in try await tx.user(id: "u-old") }?.app == "app-a")
            let clock = TestClock()
            let sessions = try await Self.manager(store, clock)
            let enrolment = try await sessions.beginTOTP(userID: "u1", issuer: "app-a", email: "ada@example.com")
            let row = try #require(try await store.read { tx in try await tx.mfaFactors(app: "app-a", userID: "u1", forUpdate: false) })
            // Sealed: neither the base32 secret nor its bytes in base64url are in the stored box.
            let sealed = try #require(row.sealedTOTPSecret)
            #expect(!sealed.contains(enrolment.secret) && !sealed.contains(Base64URL.encode(Base32.decode(enrolment.secret) ?? [])))
            #expect(row.totpConfirmedAt == nil && !row.totpEnabled)
            // Another app does not see it.
            #expect(try await store.read { tx in try await tx.mfaFactors(app: "app-b", userID: "u1", forUpdate: false) } == nil)
            #expect(try await store.transaction { tx in try await tx.deleteUser(id: "u1") })
            #expect(try await store.read { tx in try await tx.mfaFactors(app: "app-a", userID: "u1", forUpdate: false) } == nil)
        }
    }

    @Test("enrol, confirm, a code once, one step of drift, recovery codes single use, delete", arguments: StoreKind.available)
    func rules(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = try await Self.manager(t.store, clock)
            let secret = try await sessions.beginTOTP(userID: "u1", issuer: "app-a", email: "ada@example.com").secret
            // A pending enrolment is not a factor yet; a second one replaces the first.
            #expect(try await sessions.mfaStatus(userID: "u1") == MFAStatus(totp: false, passkeys: 0, recoveryCodesLeft: 0))
            let replaced = try await sessions.beginTOTP(userID: "u1", issuer: "app-a", email: "ada@example.com").secret
            #expect(replaced != secret)
            #expect(try await sessions.confirmTOTP(userID: "u1", code: try await ExternalTool.oathtoolCode(secret, at: clock.now)).0 == .refused)
            let (check, codes) = try await sessions.confirmTOTP(userID: "u1", code: try await ExternalTool.oathtoolCode(replaced, at: clock.now))
            #expect(check == .accepted && codes.count == 10 && Set(codes).count == 10)
            #expect(try await sessions.mfaStatus(userID: "u1") == MFAStatus(totp: true, passkeys: 0, recoveryCodesLeft: 10))
            // Enrolling again while on is refused.
            await #expect(throws: TokenError.self) { try await sessions.beginTOTP(userID: "u1", issuer: "app-a", email: "x") }

            // The confirming code again, in its window: refused (RFC 6238 §5.2). The next step's
            // code (one step of drift) works once; the previous step's is then stale.
            let now = clock.now
            #expect(
                try await sessions.regenerateRecoveryCodes(userID: "u1", code: try await ExternalTool.oathtoolCode(replaced, at: now)).0 == .refused)
            let next = try await ExternalTool.oathtoolCode(replaced, at: now + 30)
            let (renewed, newCodes) = try await sessions.regenerateRecoveryCodes(userID: "u1", code: next)
            #expect(renewed == .accepted && Set(newCodes).isDisjoint(with: codes))
            #expect(try await sessions.regenerateRecoveryCodes(userID: "u1", code: next).0 == .refused)
            // Two steps ahead is outside the window.
            #expect(try await sessions.disableTOTP(userID: "u1", code: try await ExternalTool.oathtoolCode(replaced, at: now + 90)) == .refused)

            // The old set died; a new code works once, in any spelling.
            #expect(try await sessions.disableTOTP(userID: "u1", code: codes[0]) == .refused)
            let checkOnly: @Sendable (inout MFAFactorsRecord, any SessionStoreTransaction) async throws -> Void = { _, _ in }
            #expect(try await sessions.checkMFA(userID: "u1", code: .recovery(newCodes[1].uppercased()), accepted: checkOnly) == .accepted)
            #expect(try await sessions.checkMFA(userID: "u1", code: .recovery(newCodes[1]), accepted: checkOnly) == .refused)
            #expect(try await sessions.mfaStatus(userID: "u1").recoveryCodesLeft == 9)
            // A recovery code is not a TOTP code.
            #expect(try await sessions.checkMFA(userID: "u1", code: .totp(newCodes[2]), accepted: checkOnly) == .refused)

            #expect(try await sessions.disableTOTP(userID: "u1", code: newCodes[2]) == .accepted)
            #expect(try await sessions.mfaStatus(userID: "u1") == MFAStatus(totp: false, passkeys: 0, recoveryCodesLeft: 0))
            await #expect(throws: TokenError.self) { try await sessions.disableTOTP(userID: "u1", code: newCodes[3]) }
        }
    }

    @Test(
        "five wrong codes lock every check for 15 minutes (the fifth answered as wrong); a success resets the count", arguments: StoreKind.available)
    func lock(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let clock = TestClock()
            let sessions = try await Self.manager(t.store, clock)
            let secret = try await sessions.beginTOTP(userID: "u1", issuer: "app-a", email: "ada@example.com").secret
            let codes = try await sessions.confirmTOTP(userID: "u1", code: try await ExternalTool.oathtoolCode(secret, at: clock.now)).1
            let none: @Sendable (inout MFAFactorsRecord, any SessionStoreTransaction) async throws -> Void = { _, _ in }
            // Four wrong, then a right one: the count starts again.
            for _ in 0..<4 { #expect(try await sessions.checkMFA(userID: "u1", code: .totp("000000"), accepted: none) == .refused) }
            #expect(try await sessions.checkMFA(userID: "u1", code: .recovery(codes[0]), accepted: none) == .accepted)
            for _ in 0..<4 { #expect(try await sessions.checkMFA(userID: "u1", code: .either("000000"), accepted: none) == .refused) }
            // The fifth in a row is answered as wrong; from the next attempt on, locked, right code or not.
            #expect(try await sessions.disableTOTP(userID: "u1", code: "111111") == .refused)
            #expect(try await sessions.checkMFA(userID: "u1", code: .recovery(codes[1]), accepted: none) == .locked(retryAfter: 900))
            clock.advance(899)
            #expect(try await sessions.regenerateRecoveryCodes(userID: "u1", code: codes[1]).0 == .locked(retryAfter: 1))
            clock.advance(1)
            #expect(try await sessions.checkMFA(userID: "u1", code: .recovery(codes[1]), accepted: none) == .accepted)
            #expect(try await sessions.mfaStatus(userID: "u1").recoveryCodesLeft == 8)
        }
    }
}
