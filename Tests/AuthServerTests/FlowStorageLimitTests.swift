import CLIHarness
import Foundation
import JOSE
import Sessions
import Testing

@testable import AuthServer

/// What one address can make the server store through the hosted pages (the contract's "The hosted
/// pages"): an authorization request that stores a flow counts toward `login_per_address` (over it:
/// the error page, 429, `Retry-After`, nothing stored); a flow has at most one live second-step
/// token, so showing its second page again shows the same one and stores no row. Both stores.
@Suite("Flows and second steps a browser can make the server store")
struct FlowStorageLimitTests {
    /// Live one-time tokens of `purpose` for `subject` in `myapp`.
    static func live(_ s: LiveServer, _ purpose: OneTimeTokenPurpose, subject: String) async throws -> Int {
        let now = Int64(Date().timeIntervalSince1970)
        return try await s.server.store.read { tx in
            try await tx.liveOneTimeTokens(purpose: purpose, app: "myapp", subject: subject, at: now, limit: 1000).count
        }
    }

    @Test("unauthenticated authorization requests past login_per_address: the 429 page with Retry-After, and no flow stored", arguments: StoreKind.available)
    func authorizeCounts(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind, limits: #""limits": {"login_per_address": "3/1h"},"#) { s in  // an hour: a loaded run takes minutes
            try await OIDCBrowser.with(s) { b in
                let authorize = "/oauth/authorize" + OIDCFixture.query(OIDCLoginPageTests.portalPairs + [("scope", "openid")])
                var statuses: [Int] = []
                var last: LiveServer.Answer?
                for _ in 0..<5 {
                    let answer = try await b.get(authorize)
                    statuses.append(answer.status)
                    last = answer
                }
                #expect(statuses == [302, 302, 302, 429, 429], "\(statuses)")
                let refused = try #require(last)
                #expect(refused.header("Retry-After").flatMap(Int.init).map { $0 >= 1 } == true)
                #expect(refused.header("Content-Type") == "text/html; charset=utf-8" && refused.header("Location") == nil)
                #expect(refused.body.contains("Too many sign-ins were started"))
            }
        }
    }

    @Test(
        "the second page shown again (the password posted twice) shows the same step token and stores no second row",
        .enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"), arguments: StoreKind.available)
    func oneSecondStepPerFlow(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            let registered = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/register",
                body: AccountRoutesTests.json(["email": "second@example.com", "password": "correct horse"]))
            #expect(registered.status == 201)
            _ = try await MFARoutesTests.enableTOTP(s, "second@example.com")
            let account = try await s.server.store.read { tx in try await tx.account(app: "myapp", emailKey: "second@example.com") }
            let userID = try #require(account?.userID)
            try await OIDCBrowser.with(s) { b in
                let (url, csrf, _) = try await OIDCLoginPageTests.openLogin(b, scope: "openid")
                var tokens: [String] = []
                for _ in 0..<3 {
                    let page = try await b.post(url, [("csrf", csrf), ("email", "second@example.com"), ("password", "correct horse")])
                    #expect(page.status == 200 && page.body.contains(#"autocomplete="one-time-code""#), "\(page.status)")
                    tokens.append(String(try #require(page.body.firstMatch(of: /name="mfa_token" value="([^"]+)"/)?.output.1)))
                }
                #expect(Set(tokens).count == 1, "each view made a new step token")
                #expect(try await Self.live(s, .pendingAuthentication, subject: userID) == 1)
            }
        }
    }
}
