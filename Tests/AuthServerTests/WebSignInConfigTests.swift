import Foundation
import Identity
import JOSE
import Testing
@testable import AuthServer
@_spi(Testing) @testable import Sessions
import OIDCProvider

/// Web sign-in's config (an app's `redirect_uris`, Apple's `web_client_id`, the providers'
/// browser URLs in `provider_urls`) and its server-side record (a `web_sign_in` one-time token:
/// 10 minutes, single use, for one login method).
@Suite struct WebSignInConfigTests {
    static func parse(_ apps: String, urls: String = "") throws -> ServerConfig {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("websignin-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pem = try JWK.generate(curve: .p256).pem()
        for (name, text) in ["g.secret": "google-secret", "k.p8": pem] {
            try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
            chmod(dir + "/" + name, 0o600)
        }
        let providerURLs = urls.isEmpty ? "" : #""provider_urls": {\#(urls)},"#
        return try ServerConfig.parse(#"{"public_url": "https://auth.example.com", \#(providerURLs) "apps": \#(apps)}"#, directory: dir)
    }

    static func refusal(_ apps: String, urls: String = "") -> String? {
        do { _ = try parse(apps, urls: urls); return nil } catch let e as TokenError {
            #expect(e.code == .invalidConfiguration)
            return e.message
        } catch { return "\(error)" }
    }

    @Test("redirect_uris, web_client_id and the browser URLs are read; their defaults")
    func read() throws {
        let c = try Self.parse(
            #"""
            {"a": {"redirect_uris": ["https://app.example.com/cb", "http://localhost:3000/cb"],
                   "providers": {"oauth2-apple": {"client_ids": ["com.example.app"], "team_id": "T", "key_id": "K",
                                                  "private_key_file": "k.p8", "web_client_id": "com.example.web"}}},
             "b": {}}
            """#, urls: #""google_authorize": "http://127.0.0.1:9/auth", "facebook_dialog": "https://fb.example.com/""#)
        #expect(c.apps["a"]?.redirectURIs == ["https://app.example.com/cb", "http://localhost:3000/cb"])
        #expect(c.apps["b"]?.redirectURIs == [])
        #expect(c.providerURLs.googleAuthorize == "http://127.0.0.1:9/auth" && c.providerURLs.facebookDialog == "https://fb.example.com")
        #expect(c.apps["a"]?.providers["oauth2-apple"]?.config(of: AppleLogin.self)?.webClientID == "com.example.web")
        let d = try Self.parse(#"{"a": {}}"#)
        #expect(d.providerURLs.googleAuthorize == "https://accounts.google.com/o/oauth2/v2/auth")
        #expect(d.providerURLs.facebookDialog == "https://www.facebook.com")
    }

    @Test(
        "a bad redirect_uris entry, browser URL or web_client_id stops the start, naming the member",
        arguments: [
            (#"{"a": {"redirect_uris": 5}}"#, "", "apps.a.redirect_uris"),
            (#"{"a": {"redirect_uris": ["http://app.example.com/cb"]}}"#, "", "apps.a.redirect_uris[0]"),
            (#"{"a": {"redirect_uris": ["https://app.example.com/cb#x"]}}"#, "", "apps.a.redirect_uris[0]"),
            (#"{"a": {"redirect_uris": ["/cb"]}}"#, "", "apps.a.redirect_uris[0]"),
            (#"{"a": {"redirect_uris": ["https://a.example/cb", "https://a.example/cb"]}}"#, "", "apps.a.redirect_uris[1]"),
            (#"{"a": {}}"#, #""google_authorize": "http://accounts.example.com/auth""#, "provider_urls.google_authorize"),
            (#"{"a": {}}"#, #""facebook_dialog": "https://user:pw@www.facebook.com""#, "provider_urls.facebook_dialog"),
            (#"{"a": {}}"#, #""facebook_dialog": "www.facebook.com""#, "provider_urls.facebook_dialog"),
            (
                #"{"a": {"providers": {"oauth2-apple": {"client_ids": ["com.example.app"], "web_client_id": "com.example.web"}}}}"#, "",
                "apps.a.providers.oauth2-apple.web_client_id"
            ),
            (
                #"{"a": {"providers": {"oauth2-apple": {"client_ids": ["x"], "team_id": "T", "key_id": "K", "private_key_file": "k.p8", "web_client_id": ""}}}}"#,
                "", "apps.a.providers.oauth2-apple.web_client_id"
            ),
        ])
    func refused(apps: String, urls: String, member: String) throws {
        let message = try #require(Self.refusal(apps, urls: urls))
        #expect(message.hasPrefix(member + ":"), "\(message)")
    }

    @Test(
        "a flow is kept for its method and app, taken once, for 10 minutes; a state of another method or app takes nothing",
        arguments: StoreKind.available)
    func record(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let now: Int64 = 1_900_000_000
            let caller = WebSignInCaller.appServices(redirect: "https://app.example.com/cb", state: "abc", device: .object(["platform": "chrome"]))
            let flow = try WebSignInFlow(caller: caller, pkce: true, created: now)
            let verifier = try #require(flow.verifier)
            #expect(flow.nonce.utf8.count == 43 && PKCE.isValidVerifier(verifier))
            #expect(flow.challenge == PKCE.challenge(forVerifier: verifier))
            #expect(try WebSignInFlow(caller: caller, pkce: false, created: now).verifier == nil)
            let apps: Set<String> = ["app-a", "app-b"]
            let state = try await t.store.startWebSignIn(flow, method: "oauth2-google", app: "app-a")
            #expect(OIDCFlowHandle.parse(state)?.clientID == "app-a")
            // Another method's callback, another app's id, a tampered token: nothing, and the flow stays.
            #expect(try await t.store.finishWebSignIn(state: state, method: "oauth2-apple", apps: apps, at: now + 1) == nil)
            let (token, _) = try #require(OIDCFlowHandle.parse(state))
            #expect(try await t.store.finishWebSignIn(state: token + ".app-b", method: "oauth2-google", apps: apps, at: now + 1) == nil)
            #expect(try await t.store.finishWebSignIn(state: token + ".app-c", method: "oauth2-google", apps: apps, at: now + 1) == nil)
            let tampered = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A") + ".app-a"
            #expect(try await t.store.finishWebSignIn(state: tampered, method: "oauth2-google", apps: apps, at: now + 1) == nil)
            #expect(try await t.store.finishWebSignIn(state: "garbage", method: "oauth2-google", apps: apps, at: now + 1) == nil)
            let taken = try #require(try await t.store.finishWebSignIn(state: state, method: "oauth2-google", apps: apps, at: now + 2))
            #expect(taken.app == "app-a" && taken.flow == flow)
            #expect(try await t.store.finishWebSignIn(state: state, method: "oauth2-google", apps: apps, at: now + 3) == nil)  // used

            let late = try await t.store.startWebSignIn(flow, method: "oauth2-google", app: "app-a")
            #expect(try await t.store.finishWebSignIn(state: late, method: "oauth2-google", apps: apps, at: now + WebSignInFlow.lifetime) == nil)
            let inTime = try await t.store.startWebSignIn(flow, method: "oauth2-google", app: "app-a")
            #expect(
                try await t.store.finishWebSignIn(state: inTime, method: "oauth2-google", apps: apps, at: now + WebSignInFlow.lifetime - 1) != nil)
        }
    }

    @Test("realm-web's device parameter: base64url or base64, padded or not, of a JSON object; anything else is invalid_parameter")
    func deviceParameter() throws {
        let json = #"{"platform":"chrome","deviceId":"0123456789abcdef01234567","sdkVersion":"2.0.1?>"}"#
        let standard = Data(json.utf8).base64EncodedString()
        let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        var unpadded = url
        while unpadded.hasSuffix("=") { unpadded.removeLast() }
        for text in [standard, url, unpadded] {
            #expect(try WebSignInRoutes.device(text)?.objectValue?["deviceId"] == "0123456789abcdef01234567", "\(text)")
        }
        #expect(try WebSignInRoutes.device(nil) == nil)
        #expect(try WebSignInRoutes.device("") == nil)
        for bad in ["!!", Data("[1]".utf8).base64EncodedString(), Data("{".utf8).base64EncodedString(), String(repeating: "A", count: 5000)] {
            #expect(throws: TokenError.self) { try WebSignInRoutes.device(bad) }
        }
    }

    @Test("Apple's user JSON: sane first and last names name the identity; anything else is left out")
    func appleUserJSON() {
        func named(_ json: String) -> (String?, String?, String?) {
            var identity = Identity(provider: "oauth2-apple", subject: "s", name: nil)
            AppleLogin.addName(from: json, to: &identity)
            return (identity.name, identity.givenName, identity.familyName)
        }
        #expect(named(#"{"name":{"firstName":"Ann","lastName":"Lee"},"email":"a@b.c"}"#) == ("Ann Lee", "Ann", "Lee"))
        #expect(named(#"{"name":{"firstName":" Ann "}}"#) == ("Ann", "Ann", nil))
        #expect(named(#"{"name":{"firstName":"A\u0007nn","lastName":7}}"#) == (nil, nil, nil))
        #expect(named(#"{"name":"Ann"}"#) == (nil, nil, nil))
        #expect(named("not json") == (nil, nil, nil))
        #expect(named(#"{"name":{"firstName":"\#(String(repeating: "x", count: 300))"}}"#) == (nil, nil, nil))
    }
}
