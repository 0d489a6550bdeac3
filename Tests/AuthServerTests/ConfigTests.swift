import AuthServer
import Dispatch
import Foundation
import Identity
import JOSE
import Sessions
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

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
        "public_url on loopback and another port than the listening one: a warning; else none",
        arguments: [
            ("http://127.0.0.1:9", 41_234, true), ("http://127.0.0.1:41234", 41_234, false), ("http://localhost", 8080, true),
            ("http://localhost", 80, false), ("https://[::1]", 443, false), ("https://[::1]:8443", 443, true),
            ("http://127.1.2.3:5", 6, true), ("https://auth.example.com", 8080, false), ("http://10.0.0.1:9", 8080, false),
        ])
    func publicURLWarning(publicURL: String, port: Int, warns: Bool) throws {
        let c = try parse(#"{"public_url":"\#(publicURL)","apps":{"a1":{}}}"#)
        let warning = c.publicURLWarning(listeningPort: port)
        #expect((warning != nil) == warns, "\(warning ?? "no warning")")
        #expect(warning?.contains("listens on port \(port)") ?? true)
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
            (
                #"{"public_url":"http://a","apps":{"x":{"providers":{"oauth2-facebook":{"app_id":"1"}}}}}"#,
                "apps.x.providers.oauth2-facebook.app_secret_file"
            ),
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

    @Test("load reads at most 1 MiB of a regular file: one byte more, a FIFO and /dev/zero are refused at once")
    func boundedRead() throws {
        let folder = dir + "/tokentool-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/server.json", minimal = #"{"public_url":"http://a","apps":{"x":{}}}"#
        let exact = minimal + String(repeating: " ", count: (1 << 20) - minimal.utf8.count)
        try exact.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try ServerConfig.load(path: path, environment: [:]).publicURL == "http://a", "exactly 1 MiB is read")
        try (exact + " ").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(Self.refusal(loading: path) == "\(path): \(path) is larger than 1048576 bytes")

        #expect(Self.refusal(loading: "/dev/zero") == "/dev/zero: /dev/zero is not a regular file (a character device)")
        #expect(Self.refusal(loading: folder)?.hasSuffix("is not a regular file (a directory)") == true)
        #if canImport(Glibc)
            let fifo = folder + "/fifo.json"
            try #require(mkfifo(fifo, 0o600) == 0)
            // Nobody writes: a blocking open would wait for ever. On a timeout, a writer's open and
            // close lets it go on (to end of file), so the test fails instead of hanging.
            let message = Self.refusal(loading: fifo) {
                let w = open(fifo, O_WRONLY | O_NONBLOCK)
                if w >= 0 { close(w) }
            }
            #expect(message == "\(fifo): \(fifo) is not a regular file (a FIFO)")
        #endif
    }

    /// The message `ServerConfig.load` refuses `path` with, loaded on another thread: "timed out"
    /// when it has not returned within 5 s (then `unblock` runs and the load is awaited).
    static func refusal(loading path: String, unblock: () -> Void = {}) -> String? {
        final class Outcome: Sendable { let message = Mutex<String?>(nil) }
        let outcome = Outcome(), done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let message: String?
            do { _ = try ServerConfig.load(path: path, environment: [:]); message = nil } catch let e as TokenError {
                message = e.code == .invalidConfiguration ? e.message : "\(e.code): \(e.message)"
            } catch { message = "\(error)" }
            outcome.message.withLock { $0 = message }
            done.signal()
        }
        guard done.wait(timeout: .now() + 5) == .success else {
            unblock()
            done.wait()
            return "timed out"
        }
        return outcome.message.withLock { $0 }
    }
}
