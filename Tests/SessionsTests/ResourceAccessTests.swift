import Foundation
import JOSE
import Testing
@_spi(Testing) @testable import Sessions

/// The one resource check (`SessionService.checkAccess`), on every store: what a verified access
/// holds, each refusal by its reason, and introspection, which now shares it.
@Suite struct ResourceAccessTests {
    static let audience = "https://api.test"

    /// The refusal of `token` under `requirement`, `nil` when it is accepted.
    static func refusal(
        _ sessions: SessionManager, _ token: String, _ requirement: AccessRequirement = AccessRequirement(), singleSpace: Bool = true
    ) async throws -> AccessRefusal? {
        do {
            _ = try await sessions.service.checkAccess(token, audiences: [audience], requirement: requirement, singleSpace: singleSpace)
            return nil
        } catch let refusal as AccessRefusal {
            return refusal
        }
    }

    @Test("a disabled user's access and refresh tokens are refused, and introspect inactive, at once", arguments: StoreKind.available)
    func disabledUser(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            let pair = try await Conformance.firstPair(sessions)
            #expect(try await sessions.introspect(pair.accessToken).active)
            #expect(try await sessions.introspect(pair.refreshToken).active)

            try await sessions.setUserDisabled(id: "alice", true)
            let access = try await sessions.introspect(pair.accessToken)
            #expect(!access.active && access.response.map(\.key) == ["active"] && access.reason?.code == .sessionRevoked)
            let refresh = try await sessions.introspect(pair.refreshToken)
            #expect(!refresh.active && refresh.response.map(\.key) == ["active"] && refresh.reason?.code == .userDisabled)
            #expect(try await Self.refusal(sessions, pair.accessToken)?.reason == .sessionEnded)

            try await sessions.setUserDisabled(id: "alice", false)
            #expect(try await sessions.introspect(pair.accessToken).active)
            #expect(try await Self.refusal(sessions, pair.accessToken) == nil)
            // A deleted user's: refused, inactive.
            try await sessions.deleteUser(id: "alice")
            #expect(!(try await sessions.introspect(pair.accessToken).active))
        }
    }

    @Test("a verified access names the app, user, session, client and scopes; each requirement refuses by its reason", arguments: StoreKind.available)
    func requirements(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            let pair = try await Conformance.firstPair(sessions)
            let access = try await sessions.service.checkAccess(pair.accessToken, audiences: [Self.audience], singleSpace: true)
            #expect(access.app == Self.audience && access.userID == "alice" && access.sessionID == pair.sessionID)
            #expect(access.clientID == "ios-app" && access.scopes.isEmpty && access.keyThumbprint == nil)

            #expect(try await Self.refusal(sessions, pair.accessToken, AccessRequirement(clients: .only(["ios-app"]))) == nil)
            #expect(try await Self.refusal(sessions, pair.accessToken, AccessRequirement(clients: .only(["web"])))?.reason == .wrongClient)
            // Its client is not the app (its audience): not an App Services session's token.
            #expect(try await Self.refusal(sessions, pair.accessToken, .appSession)?.reason == .wrongClient)
            let scope = try await Self.refusal(sessions, pair.accessToken, AccessRequirement(scopes: ["openid"]))
            #expect(scope?.reason == .insufficientScope && scope?.requiredScopes == ["openid"])
            // A user of the library's single space is of no app on a server's store.
            #expect(try await Self.refusal(sessions, pair.accessToken, singleSpace: false)?.reason == .sessionEnded)
            // Not a token, another audience's: invalid, with the verifier's code.
            let garbage = try await Self.refusal(sessions, "not.a.token")
            #expect(garbage?.reason == .invalidToken && garbage?.code == .malformed)
            await #expect(throws: AccessRefusal.self) {
                _ = try await sessions.service.checkAccess(pair.accessToken, audiences: ["https://other.test"])
            }
            // An ended session's.
            try await sessions.revokeSession(id: pair.sessionID)
            #expect(try await Self.refusal(sessions, pair.accessToken)?.reason == .sessionEnded)
        }
    }

    @Test("a token bound to a key (cnf.jkt) is refused as a bearer token; introspection reports its cnf", arguments: StoreKind.available)
    func keyBound(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let sessions = Conformance.manager(t.store, TestClock())
            let pair = try await Conformance.firstPair(sessions)
            // The store's own key signs it: everything but the binding is as good as the pair's.
            let record = try #require(try await t.store.transaction { tx in try await tx.activeSigningKey() })
            var signer = try JWTSigner(key: try JWK(json: record.privateJWK), keyID: record.keyID)
            signer.type = "at+jwt"
            var claims = try #require(try UnverifiedToken(pair.accessToken).claims)
            let jkt = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"  // RFC 9449 §6.1's example thumbprint
            claims["cnf"] = .object(["jkt": .string(jkt)])
            let bound = try signer.sign(claims)

            let refused = try await Self.refusal(sessions, bound)
            #expect(refused?.reason == .keyBound)
            // The requirement alone (AuthMiddleware's lane checks) refuses it too.
            let parsed = try AccessTokenClaims(claims)
            #expect(parsed.keyThumbprint == jkt)
            #expect(throws: AccessRefusal.self) { try AccessRequirement().check(parsed, app: Self.audience, presentedAs: .bearer) }
            let inspected = try await sessions.introspect(bound)
            #expect(inspected.active && inspected.response["cnf"] == .object(["jkt": .string(jkt)]))

            // A confirmation it cannot read still binds: refused, never dropped.
            claims["cnf"] = .string(jkt)
            let unreadable = try await Self.refusal(sessions, try signer.sign(claims))
            #expect(unreadable?.reason == .invalidToken && unreadable?.code == .invalidClaim)
        }
    }
}
