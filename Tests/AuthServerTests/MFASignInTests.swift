import CLIHarness
import Foundation
import JOSE
import Sessions
import Testing

/// What a session keeps of its sign-in, over real HTTP on every store: `auth_time` and `amr` of
/// an App Services email/password login, with and without its second step, repeated with `acr`
/// in every access token of the session, refreshed ones included (a refresh is not a sign-in).
@Suite(.enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"))
struct MFASignInTests {
    typealias T = MFARoutesTests
    static let password = ["pwd"], secondFactor = ["pwd", "otp", "mfa"]

    /// The access token's `amr` and `acr`.
    static func amr(_ access: String?) throws -> (amr: [String]?, acr: String?) {
        let claims = try DeviceIDTests.claims(access)
        return (claims["amr"]?.arrayValue?.compactMap(\.stringValue), claims["acr"]?.stringValue)
    }

    /// The access token of a refresh of `refresh`.
    static func refreshed(_ s: LiveServer, _ refresh: String?) async throws -> String? {
        let token = try #require(refresh)
        let answer = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: token)
        #expect(answer.status == 201, "\(answer.body)")
        return answer["access_token"]
    }

    @Test(
        "a password login is amr [pwd] (acr pwd); its second step by code or recovery code [pwd, otp, mfa] (acr mfa); refreshes keep them",
        arguments: StoreKind.available)
    func amrAndACR(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: T.apps) { s in
            let before = T.now
            let (secret, codes, access) = try await T.enrolled(s)
            #expect(try Self.amr(access) == (Self.password, "urn:tokentool:acr:pwd"))
            let sessions = try #require(s.server.apps["myapp"]).sessions
            let sid = try #require(try DeviceIDTests.claims(access)["sid"]?.stringValue)
            let first = try #require(try await sessions.session(id: sid))
            let signIn = try #require(first.signIn)
            #expect(signIn.amr == Self.password && signIn.opSessionID == nil && signIn.scopes.isEmpty)
            #expect((before...T.now).contains(signIn.authTime))
            #expect(try DeviceIDTests.claims(access)["scope"] == nil)

            let token = try #require(try await T.login(s)["mfa_token"])
            let code = try await ExternalTool.oathtoolCode(secret, at: T.now + 30)
            let byCode = try await s.call(.POST, T.userpass + "/mfa", body: T.json(["mfa_token": token, "code": code]))
            #expect(byCode.status == 200, "\(byCode.body)")
            #expect(try Self.amr(byCode["access_token"]) == (Self.secondFactor, "urn:tokentool:acr:mfa"))
            #expect(try Self.amr(try await Self.refreshed(s, byCode["refresh_token"])) == (Self.secondFactor, "urn:tokentool:acr:mfa"))

            let next = try #require(try await T.login(s)["mfa_token"])
            let byRecovery = try await s.call(.POST, T.userpass + "/mfa", body: T.json(["mfa_token": next, "recovery_code": codes[0]]))
            #expect(byRecovery.status == 200, "\(byRecovery.body)")
            #expect(try Self.amr(byRecovery["access_token"]) == (Self.secondFactor, "urn:tokentool:acr:mfa"))
            // A session from before sessions kept their sign-in: no amr or acr, refreshes work.
            let oldSession = try #require(try DeviceIDTests.claims(byRecovery["access_token"])["sid"]?.stringValue)
            try await T.raw(s, "UPDATE sessions SET auth_time = NULL, amr = NULL WHERE id = '\(oldSession)'")
            let plain = try await Self.refreshed(s, byRecovery["refresh_token"])
            #expect(try Self.amr(plain) == (nil, nil))
        }
    }
}
