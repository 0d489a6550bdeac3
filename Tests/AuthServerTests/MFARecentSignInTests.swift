import CLIHarness
import Foundation
import JOSE
import Sessions
import Testing

/// The 10-minute re-authentication check of the factor routes, over real HTTP on every store: it
/// reads the session's own sign-in time, never the access token's `iat`.
@Suite(.enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"))
struct MFARecentSignInTests {
    typealias T = MFARoutesTests

    @Test(
        "the 10-minute re-authentication check reads the session's auth_time (created_at without one), never iat: a refresh does not renew it",
        arguments: StoreKind.available)
    func recentSignIn(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: T.apps) { s in
            let (_, codes, access) = try await T.enrolled(s)
            let sid = try #require(try DeviceIDTests.claims(access)["sid"]?.stringValue)
            let token = try #require(try await T.login(s)["mfa_token"])
            let second = try await s.call(.POST, T.userpass + "/mfa", body: T.json(["mfa_token": token, "recovery_code": codes[0]]))
            let secondSID = try #require(try DeviceIDTests.claims(second["access_token"])["sid"]?.stringValue)
            // Signed in 11 minutes ago, the session made just now (as an OpenID Connect code redeemed late makes it).
            try await T.raw(s, "UPDATE sessions SET auth_time = auth_time - 660 WHERE id = '\(sid)'")
            let stale = try await s.call(.POST, T.mfa + "/recovery_codes", body: T.json(["code": codes[1]]), bearer: access)
            #expect(stale.status == 401 && stale.errorCode == "ReauthenticationRequired", "\(stale.body)")
            // A refresh is not a sign-in: its fresh access token (new iat) is refused as well.
            try await T.raw(s, "UPDATE sessions SET created_at = created_at - 660, auth_time = auth_time - 660 WHERE id = '\(secondSID)'")
            let renewed = try await MFASignInTests.refreshed(s, second["refresh_token"])
            let iat = try #require(try DeviceIDTests.claims(renewed)["iat"]?.numberValue)
            #expect(Int64(iat) >= T.now - 5)
            let afterRefresh = try await s.call(.POST, T.mfa + "/recovery_codes", body: T.json(["code": codes[1]]), bearer: renewed)
            #expect(afterRefresh.status == 401 && afterRefresh.errorCode == "ReauthenticationRequired", "\(afterRefresh.body)")
            // Without an auth_time (a session from before sessions kept one), its creation counts.
            try await T.raw(s, "UPDATE sessions SET auth_time = NULL, amr = NULL WHERE id = '\(secondSID)'")
            #expect(try await s.call(.POST, T.mfa + "/totp", bearer: renewed).errorCode == "ReauthenticationRequired")
            try await T.raw(s, "UPDATE sessions SET created_at = created_at + 660 WHERE id = '\(secondSID)'")
            let recent = try await s.call(.POST, T.mfa + "/recovery_codes", body: T.json(["code": codes[2]]), bearer: renewed)
            #expect(recent.status == 200, "\(recent.body)")
        }
    }
}
