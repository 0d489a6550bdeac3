import Foundation
import Testing
@testable import AuthServer
@_spi(Testing) @testable import Sessions
import OIDCProvider

/// The consent page of a third-party client over HTTP on both stores (deny, allow, remembered,
/// prompt=consent, escaping), and the `consents` table of schema step 14: upgraded onto from
/// step 12's schema, its rows gone with their user.
@Suite struct OIDCConsentTests {

    @Test(
        "prompt=login and max_age are not skipped by opening the flow's consent page: it sends the browser back to the login page, no code",
        arguments: StoreKind.available)
    func consentPageDoesNotSkipTheLogin(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "person@example.com")
            try await OIDCBrowser.with(s) { b in
                try await Self.signIn(b, "person@example.com")
                // The sign-in above is older than the flows below by a second at least.
                try await Task.sleep(for: .milliseconds(1_100))
                let cases: [(client: [(String, String)], extra: [(String, String)])] = [
                    (OIDCLoginPageTests.portalPairs, [("prompt", "login")]), (OIDCLoginPageTests.portalPairs, [("max_age", "0")]),
                    (Self.third, [("prompt", "login consent")]), (Self.third, [("max_age", "0")]),
                ]
                for (client, extra) in cases {
                    let start = try await b.get("/oauth/authorize" + OIDCFixture.query(client + [("scope", "openid")] + extra))
                    let login = try #require(start.header("Location"), "\(extra)")
                    #expect(login.contains("/oauth/login?flow="), "\(extra): \(login)")
                    let csrf = try #require(OIDCFixture.csrf(try await b.get(login).body))
                    let consentURL = login.replacingOccurrences(of: "/oauth/login?", with: "/oauth/consent?")
                    let opened = try await b.get(consentURL)
                    #expect(opened.header("Location") == login, "\(extra): GET consent \(opened.status) \(opened.header("Location") ?? "")")
                    let allowed = try await b.post(consentURL, [("csrf", csrf), ("decision", "allow")])
                    #expect(allowed.status == 303 && allowed.header("Location") == login, "\(extra): \(allowed.status) \(allowed.header("Location") ?? "")")
                    #expect(allowed.header("Location")?.contains("code=") != true)
                    // The flow's own login page meets it, and then the code comes (through consent for the third party).
                    let signedIn = try await b.post(login, [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)])
                    #expect(signedIn.status == 303, "\(extra): \(signedIn.status)")
                    var next = try #require(signedIn.header("Location"))
                    if next.contains("/oauth/consent?flow=") {
                        let token = try #require(OIDCFixture.csrf(try await b.get(next).body))
                        next = try #require(try await b.post(next, [("csrf", token), ("decision", "allow")]).header("Location"))
                    }
                    #expect(OIDCFixture.parameters(next)["code"] != nil, "\(extra): \(next)")
                    try await Task.sleep(for: .milliseconds(1_100))
                }
            }
        }
    }

    static let third = [("response_type", "code"), ("client_id", "third"), ("redirect_uri", "https://third.example/cb"), ("state", "s3")]

    /// Signs the browser in on a first-party flow.
    static func signIn(_ b: OIDCBrowser, _ email: String) async throws {
        let (url, csrf, _) = try await OIDCLoginPageTests.openLogin(b)
        let a = try await b.post(url, [("csrf", csrf), ("email", email), ("password", OIDCFixture.password)])
        #expect(a.status == 303)
    }

    @Test("a third-party client: consent page (escaped name, scopes), deny is access_denied, allow is remembered", arguments: StoreKind.available)
    func consent(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            let userID = try #require(try await OIDCFixture.register(s, "person@example.com"))
            try await OIDCBrowser.with(s) { b in
                // Not signed in: the login page first, then the consent page, in one flow.
                let start = try await b.get("/oauth/authorize" + OIDCFixture.query(Self.third + [("scope", "openid email profile")]))
                let login = try #require(start.header("Location"))
                #expect(login.contains("/oauth/login?flow="))
                let csrf = try #require(OIDCFixture.csrf(try await b.get(login).body))
                let signedIn = try await b.post(login, [("csrf", csrf), ("email", "person@example.com"), ("password", OIDCFixture.password)])
                #expect(signedIn.status == 303 && signedIn.header("Location")?.contains("/oauth/consent?flow=") == true)
                let consentURL = try #require(signedIn.header("Location"))
                let page = try await b.get(consentURL)
                #expect(page.status == 200 && page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;"))
                #expect(!page.body.contains("<script>") && page.body.contains("Your email address") && !page.body.contains("Your name"))
                #expect(page.body.contains("person@example.com"))
                OIDCAuthorizeTests.expectPageHeaders(page)
                let token = try #require(OIDCFixture.csrf(page.body))
                #expect(try await b.post(consentURL, [("decision", "allow")]).status == 403)

                let denied = try await b.post(consentURL, [("csrf", token), ("decision", "deny")])
                let d = OIDCFixture.parameters(denied.header("Location"))
                #expect(denied.status == 303 && d["error"] == "access_denied" && d["state"] == "s3" && d["iss"] == "http://auth.test")
                #expect(try await b.get(consentURL).status == 400)
                #expect(try await s.server.store.read { tx in try await tx.consent(userID: userID, clientID: "third") } == nil)

                // Signed in now: straight to the consent page; prompt=none is consent_required.
                let none = try await b.get("/oauth/authorize" + OIDCFixture.query(Self.third + [("scope", "openid"), ("prompt", "none")]))
                #expect(OIDCFixture.parameters(none.header("Location"))["error"] == "consent_required")
                let again = try await b.get("/oauth/authorize" + OIDCFixture.query(Self.third + [("scope", "openid")]))
                let url = try #require(again.header("Location"))
                #expect(url.contains("/oauth/consent?flow="))
                let allow = try #require(OIDCFixture.csrf(try await b.get(url).body))
                let allowed = try await b.post(url, [("csrf", allow), ("decision", "allow")])
                #expect(allowed.status == 303 && allowed.header("Location")?.hasPrefix("https://third.example/cb?code=") == true)
                let code = try #require(OIDCFixture.parameters(allowed.header("Location"))["code"])
                let redeemed = try await s.server.store.redeemAuthorizationCode(
                    code, clientID: "third", app: "myapp", redirectURI: "https://third.example/cb", verifier: nil,
                    at: Int64(Date().timeIntervalSince1970))
                guard case .redeemed(let c) = redeemed else { Issue.record("\(redeemed)"); return }
                #expect(c.userID == userID && c.binding.scopes == ["openid"])
                #expect(try await s.server.store.read { tx in try await tx.consent(userID: userID, clientID: "third") }?.scopes == ["openid"])

                // Remembered: the code at once (prompt=none too); more scopes ask again; prompt=consent always asks.
                for extra in [[("scope", "openid")], [("scope", "openid"), ("prompt", "none")]] {
                    let direct = try await b.get("/oauth/authorize" + OIDCFixture.query(Self.third + extra))
                    #expect(direct.header("Location")?.hasPrefix("https://third.example/cb?code=") == true)
                }
                for extra in [[("scope", "openid email")], [("scope", "openid"), ("prompt", "consent")]] {
                    let asks = try await b.get("/oauth/authorize" + OIDCFixture.query(Self.third + extra))
                    #expect(asks.header("Location")?.contains("/oauth/consent?flow=") == true)
                }
                let more = try #require(
                    try await b.get("/oauth/authorize" + OIDCFixture.query(Self.third + [("scope", "email openid")])).header("Location"))
                let moreToken = try #require(OIDCFixture.csrf(try await b.get(more).body))
                #expect(try await b.post(more, [("csrf", moreToken), ("decision", "allow")]).status == 303)
                #expect(
                    try await s.server.store.read { tx in try await tx.consent(userID: userID, clientID: "third") }?.scopes == ["openid", "email"])

                // Without a session the consent page sends the browser to the login page of its flow.
                b.cookies = [:]
                let signedOut = try await b.get(more)
                #expect(signedOut.status == 400)
                let fresh = try #require(
                    try await Self.consentFlow(b, s, email: "person@example.com"))
                // Signed out, the same browser (its flow-binding cookie kept: without it, it is another browser, the 400 page).
                b.cookies = b.cookies.filter { $0.key == "tokentool-flow" }
                #expect(try await b.get(fresh).header("Location")?.contains("/oauth/login?flow=") == true)
            }
        }
    }

    /// A consent page's URL for a browser signed in as `email`.
    static func consentFlow(_ b: OIDCBrowser, _ s: LiveServer, email: String) async throws -> String? {
        try await signIn(b, email)
        return try await b.get("/oauth/authorize" + OIDCFixture.query(third + [("scope", "openid"), ("prompt", "consent")])).header("Location")
    }

    @Test("consents: saved, replaced, per user and client; deleteUser removes them; added onto a step-12 store", arguments: StoreKind.available)
    func store(kind: StoreKind) async throws {
        try await Harness.withStore(kind, migratingTo: 12) { t in
            try await t.executeRaw("INSERT INTO users (id, created_at) VALUES ('u-old', 1)")
            let store = try await t.reopen(nil)
            #expect(try await store.schemaVersion() == SessionSchema.latestVersion && SessionSchema.latestVersion >= 14)
            try await store.transaction { tx in
                try await tx.insertUser(UserRecord(id: "u-two", createdAt: 2))
                try await tx.saveConsent(ConsentRecord(userID: "u-old", clientID: "c1", scopes: ["openid"], createdAt: 10, updatedAt: 10))
                try await tx.saveConsent(ConsentRecord(userID: "u-old", clientID: "c1", scopes: ["openid", "email"], createdAt: 10, updatedAt: 20))
                try await tx.saveConsent(ConsentRecord(userID: "u-old", clientID: "c2", scopes: ["profile"], createdAt: 30, updatedAt: 30))
                try await tx.saveConsent(ConsentRecord(userID: "u-two", clientID: "c1", scopes: ["openid"], createdAt: 40, updatedAt: 40))
            }
            let c1 = try await store.read { tx in try await tx.consent(userID: "u-old", clientID: "c1") }
            #expect(c1 == ConsentRecord(userID: "u-old", clientID: "c1", scopes: ["openid", "email"], createdAt: 10, updatedAt: 20))
            #expect(try await store.transaction { tx in try await tx.deleteUser(id: "u-old") })
            for client in ["c1", "c2"] {
                #expect(try await store.read { tx in try await tx.consent(userID: "u-old", clientID: client) } == nil)
            }
            #expect(try await store.read { tx in try await tx.consent(userID: "u-two", clientID: "c1") }?.scopes == ["openid"])
            try await store.close()
        }
    }
}
