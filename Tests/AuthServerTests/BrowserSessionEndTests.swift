@testable import AuthServer
import CLIHarness
import Foundation
import JOSE
import Sessions
import Testing

/// The contract: a browser signed in to the OpenID Provider before a password reset, before "sign out
/// everywhere else", or before its user turned TOTP on, no longer gets codes silently
/// (`prompt=none`): the reset ends every OP browser session in its transaction, a new factor must
/// be passed before the next code, and `GET BASE/auth/sessions` lists the browsers (`"platform":"web"`)
/// so that `DELETE` of an entry signs that browser out. Over HTTP on both stores.
@Suite("Browser sessions end with what should end them")
struct BrowserSessionEndTests {
    static let silent = "/oauth/authorize" + OIDCFixture.query(OIDCLoginPageTests.portalPairs + [("scope", "openid"), ("prompt", "none")])

    /// `prompt=none` for the first-party client: the code at once, or `login_required`.
    static func silentAnswer(_ b: OIDCBrowser) async throws -> String {
        let answer = try await b.get(Self.silent)
        let parameters = OIDCFixture.parameters(answer.header("Location"))
        return parameters["code"] != nil ? "code" : (parameters["error"] ?? "status \(answer.status)")
    }

    static func signedInBrowser(_ s: LiveServer, _ b: OIDCBrowser, _ email: String) async throws {
        try await OIDCConsentTests.signIn(b, email)
        #expect(try await Self.silentAnswer(b) == "code", "the browser is signed in")
    }

    @Test("a completed password reset ends every OP browser session: prompt=none is login_required", arguments: StoreKind.available)
    func reset(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                try await Self.signedInBrowser(s, b, "person@example.com")
                let manager = try #require(s.server.accounts["myapp"]).manager
                let token = try #require(try await manager.issueReset(email: "person@example.com"))
                let done = try await s.call(
                    .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/reset",
                    body: AccountRoutesTests.json(["token": token.token, "tokenId": token.tokenID, "password": "a new password 22"]))
                #expect(done.status == 204, "\(done.body)")
                #expect(try await Self.silentAnswer(b) == "login_required")
            }
        }
    }

    @Test("the browsers are in GET BASE/auth/sessions (platform web); DELETE of one signs that browser out, not another", arguments: StoreKind.available)
    func listAndEnd(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "person@example.com")
            let login = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/login",
                body: AccountRoutesTests.json(["username": "person@example.com", "password": OIDCFixture.password]))
            let access = try #require(login["access_token"])
            try await OIDCBrowser.with(s) { first in
                try await OIDCBrowser.with(s) { second in
                    try await Self.signedInBrowser(s, first, "person@example.com")
                    try await Self.signedInBrowser(s, second, "person@example.com")
                    let listed = try await s.call(.GET, LiveServer.base + "/auth/sessions", bearer: access)
                    #expect(listed.status == 200)
                    let entries = try #require(listed.json?.arrayValue).compactMap(\.objectValue)
                    let web = entries.filter { $0["platform"] == "web" }
                    #expect(web.count == 2 && web.allSatisfy { $0["current"] == false && $0["id"]?.stringValue != nil }, "\(listed.body)")
                    #expect(entries.contains { $0["current"] == true }, "the caller's own session")
                    // The first browser's entry: its OP session's sid.
                    let now = Int64(Date().timeIntervalSince1970)
                    let firstCookie = try #require(first.cookies["tokentool-op-myapp"])
                    let firstSID = try #require(try await s.server.store.opSession(token: firstCookie, app: "myapp", at: now)).sessionID
                    #expect(web.contains { $0["id"]?.stringValue == firstSID })
                    let ended = try await s.call(.DELETE, LiveServer.base + "/auth/sessions/" + firstSID, bearer: access)
                    #expect(ended.status == 204, "\(ended.body)")
                    #expect(try await Self.silentAnswer(first) == "login_required")
                    #expect(try await Self.silentAnswer(second) == "code", "the other browser stays signed in")
                    #expect(try await s.call(.DELETE, LiveServer.base + "/auth/sessions/" + firstSID, bearer: access).status == 404)
                    // Another user cannot end this user's browser by its sid.
                    try await OIDCFixture.register(s, "other@example.com")
                    let other = try await s.call(
                        .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/login",
                        body: AccountRoutesTests.json(["username": "other@example.com", "password": OIDCFixture.password]))
                    let secondSID = try #require(web.first { $0["id"]?.stringValue != firstSID }?["id"]?.stringValue)
                    let foreign = try await s.call(.DELETE, LiveServer.base + "/auth/sessions/" + secondSID, bearer: other["access_token"])
                    #expect(foreign.status == 404)
                    #expect(try await Self.silentAnswer(second) == "code")
                }
            }
        }
    }

    @Test(
        "after TOTP is turned on, a browser signed in without it must pass it: prompt=none is interaction_required, the flow asks for the code alone",
        .enabled(if: ExternalTool.oathtool, "oathtool is missing (make deps installs it)"), arguments: StoreKind.available)
    func newFactor(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                try await Self.signedInBrowser(s, b, "person@example.com")
                let login = try await s.call(
                    .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/login",
                    body: AccountRoutesTests.json(["username": "person@example.com", "password": OIDCFixture.password]))
                let access = try #require(login["access_token"])
                let enrolment = try await s.call(.POST, LiveServer.base + "/auth/mfa/totp", bearer: access)
                let secret = try #require(enrolment["secret"])
                let code = try await ExternalTool.oathtoolCode(secret, at: Int64(Date().timeIntervalSince1970))
                let confirmed = try await s.call(.POST, LiveServer.base + "/auth/mfa/totp/confirm", body: AccountRoutesTests.json(["code": code]), bearer: access)
                #expect(confirmed.status == 200, "\(confirmed.body)")
                // No code silently any more: prompt=none must interact, and the flow asks for the code alone.
                #expect(try await Self.silentAnswer(b) == "interaction_required")
                let start = try await b.get("/oauth/authorize" + OIDCFixture.query(OIDCLoginPageTests.portalPairs + [("scope", "openid")]))
                let url = try #require(start.header("Location"))
                #expect(url.contains("/oauth/login?flow="), "\(url)")
                let page = try await b.get(url)
                #expect(page.body.contains(#"autocomplete="one-time-code""#) && !page.body.contains(#"name="password""#))
                // Its consent URL does not skip the code either.
                let consent = try await b.get(url.replacingOccurrences(of: "/oauth/login?", with: "/oauth/consent?"))
                #expect(consent.header("Location") == url, "\(consent.status) \(consent.header("Location") ?? "")")
                let token = String(try #require(page.body.firstMatch(of: /name="mfa_token" value="([^"]+)"/)?.output.1))
                let next = try await ExternalTool.oathtoolCode(secret, at: Int64(Date().timeIntervalSince1970) + 30)
                let done = try await b.post(url, [("csrf", try #require(OIDCFixture.csrf(page.body))), ("mfa_token", token), ("code", next)])
                #expect(done.status == 303 && done.header("Location")?.contains("code=") == true, "\(done.status) \(done.body.prefix(200))")
                #expect(try await Self.silentAnswer(b) == "code", "signed in with the factor now")
            }
        }
    }
}
