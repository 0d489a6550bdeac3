import AuthServer
import Foundation
import Identity
import JOSE
import Sessions
import Testing

@Suite("Server config")
struct ConfigTests {
    let dir = FileManager.default.temporaryDirectory.path

    func parse(_ text: String) throws -> ServerConfig { try ServerConfig.parse(text, directory: "/srv/auth") }

    func refusal(_ text: String) -> String? {
        do { _ = try parse(text); return nil } catch let e as TokenError {
            #expect(e.code.rawValue == "invalid_configuration")
            return e.message
        } catch { return "\(error)" }
    }

    @Test("defaults: store beside the config, 30m access tokens, rotation off, 10 s grace, the documented limits")
    func defaults() throws {
        let c = try parse(#"{"public_url":"https://auth.example.com/","apps":{"a1":{}}}"#)
        #expect(c.publicURL == "https://auth.example.com")
        #expect(c.store == "/srv/auth/tokentool.sqlite")
        let app = try #require(c.apps["a1"])
        #expect(app.accessTokenTTL == 1800 && app.refreshTokenTTL == 60 * 86_400 && !app.refreshRotation && app.reuseGrace == 10)
        #expect(c.limits.loginPerAddress == RateLimit(count: 300, window: 300))
        #expect(c.limits.mailPerAddress == RateLimit(count: 5, window: 3600))
        #expect(c.limits.callPerAddress == RateLimit(count: 30, window: 300))
        #expect(c.providerURLs.apple == "https://appleid.apple.com")
        #expect(c.providerTimeout == 5)
    }

    @Test("durations, rates and relative paths are parsed")
    func parsed() throws {
        let c = try parse(
            #"""
            {"public_url":"http://127.0.0.1:9","store":"data/s.sqlite","master_key_file":"/etc/k",
             "limits":{"login_per_address":"7/2h","call_per_address":"4/10m"},
             "apps":{"a":{"access_token_ttl":"90s","refresh_token_ttl":"2d","refresh_rotation":true,"reuse_grace":"1m"}}}
            """#)
        #expect(c.store == "/srv/auth/data/s.sqlite" && c.masterKeyFile == "/etc/k")
        #expect(c.limits.loginPerAddress == RateLimit(count: 7, window: 7200))
        #expect(c.limits.callPerAddress == RateLimit(count: 4, window: 600))
        let a = try #require(c.apps["a"])
        #expect(a.accessTokenTTL == 90 && a.refreshTokenTTL == 172_800 && a.refreshRotation && a.reuseGrace == 60)
    }

    @Test(
        "an unknown member is an error naming its JSON path",
        arguments: [
            (#"{"public_url":"http://a","apps":{"x":{}},"lmits":{}}"#, "lmits: unknown member"),
            (#"{"public_url":"http://a","apps":{"x":{"acess_token_ttl":"1m"}}}"#, "apps.x.acess_token_ttl: unknown member"),
            (
                #"{"public_url":"http://a","apps":{"x":{"providers":{"oauth2-google":{"client_ids":["c"],"hosted_domian":"e"}}}}}"#,
                "apps.x.providers.oauth2-google.hosted_domian: unknown member"
            ),
            (#"{"public_url":"http://a","apps":{"x":{"providers":{"anon-usr":{}}}}}"#, "apps.x.providers.anon-usr: unknown member"),
            (#"{"public_url":"http://a","apps":{"x":{}},"limits":{"login_per_adress":"1/1s"}}"#, "limits.login_per_adress: unknown member"),
        ])
    func unknownMember(text: String, expected: String) {
        #expect(refusal(text) == expected)
    }

    @Test(
        "bad values name their member",
        arguments: [
            (#"{"apps":{"x":{}}}"#, "public_url"),
            (#"{"public_url":"ftp://a","apps":{"x":{}}}"#, "public_url"),
            (#"{"public_url":"http://a"}"#, "apps"),
            (#"{"public_url":"http://a","apps":{}}"#, "apps"),
            (#"{"public_url":"http://a","apps":{"x":{"access_token_ttl":"30"}}}"#, "apps.x.access_token_ttl"),
            (#"{"public_url":"http://a","apps":{"x":{"access_token_ttl":"5w"}}}"#, "apps.x.access_token_ttl"),
            (#"{"public_url":"http://a","apps":{"x":{"refresh_rotation":"yes"}}}"#, "apps.x.refresh_rotation"),
            (#"{"public_url":"http://a","apps":{"x":{}},"limits":{"mail_per_address":"5/"}}"#, "limits.mail_per_address"),
            (#"{"public_url":"http://a","apps":{"x y":{}}}"#, "apps.x y"),
            (#"{"public_url":"http://a","apps":{"x":{"providers":{"oauth2-facebook":{"app_id":"1"}}}}}"#, "apps.x.providers.oauth2-facebook.app_secret_file"),
            (#"{"public_url":"http://a","apps":{"x":{}},"provider_timeout":"0s"}"#, "provider_timeout"),
            (#"{"public_url":"http://a","apps":{"x":{}},"provider_timeout":"2m"}"#, "provider_timeout"),
        ])
    func badValue(text: String, path: String) throws {
        let message = try #require(refusal(text))
        #expect(message.hasPrefix(path + ":"), "\(message)")
    }

    @Test("duplicate member names are refused")
    func duplicates() {
        #expect(refusal(#"{"public_url":"http://a","public_url":"http://b","apps":{"x":{}}}"#) != nil)
    }

    @Test("load names the file; TOKENTOOL_STORE and TOKENTOOL_MASTER_KEY_FILE override the file")
    func loadAndOverrides() throws {
        let folder = dir + "/tokentool-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.json"
        try #"{"public_url":"http://a","apps":{"x":{}},"store":"one.sqlite"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let c = try ServerConfig.load(path: path, environment: ["TOKENTOOL_STORE": "two.sqlite", "TOKENTOOL_MASTER_KEY_FILE": "/k"])
        #expect(c.store == folder + "/two.sqlite" && c.masterKeyFile == "/k")
        try #"{"public_url":"http://a","apps":{"x":{"typo":1}}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: TokenError(.invalidConfiguration, "")) { try ServerConfig.load(path: path, environment: [:]) }
        do { _ = try ServerConfig.load(path: path, environment: [:]) } catch let e as TokenError {
            #expect(e.message == "\(path): apps.x.typo: unknown member")
        }
    }
}
