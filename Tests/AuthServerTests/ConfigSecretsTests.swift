import AuthServer
import Foundation
import JOSE
import Testing

/// Where the config sends secrets, and who may read the secrets it reads.
@Suite("Config: webhook URLs and secret files")
struct ConfigSecretsTests {
    /// `member`'s refusal message for `text`, or `nil` when the config is accepted.
    static func refusal(_ text: String, directory: String = "/srv") -> String? {
        do { _ = try ServerConfig.parse(text, directory: directory); return nil } catch let e as TokenError {
            #expect(e.code == .invalidConfiguration)
            return e.message
        } catch { return "\(error)" }
    }

    static func withSecret(mode: mode_t, _ body: (String) throws -> Void) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("secrets-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try String(repeating: "s", count: 40).write(toFile: dir + "/hook.secret", atomically: true, encoding: .utf8)
        chmod(dir + "/hook.secret", mode)
        try body(dir)
    }

    @Test("mail and user_deleted webhooks: https, or http on loopback only, without credentials")
    func webhookURLs() throws {
        try Self.withSecret(mode: 0o600) { dir in
            func mail(_ url: String) -> String {
                #"{"public_url":"http://a","apps":{"x":{"providers":{"local-userpass":{"delivery":{"webhook":"\#(url)","secret_file":"hook.secret"}}}}}}"#
            }
            func deleted(_ url: String) -> String { #"{"public_url":"http://a","apps":{"x":{"webhooks":{"user_deleted":"\#(url)"}}}}"# }
            for bad in ["http://mail.example.com/hook", "http://10.0.0.5/hook", "https://user:pw@mail.example.com/hook", "ftp://mail.example.com/"] {
                #expect(Self.refusal(mail(bad), directory: dir)?.hasPrefix("apps.x.providers.local-userpass.delivery.webhook:") == true, "\(bad)")
                #expect(Self.refusal(deleted(bad), directory: dir)?.hasPrefix("apps.x.webhooks.user_deleted:") == true, "\(bad)")
            }
            for good in ["https://mail.example.com/hook", "http://127.0.0.1:8025/mail", "http://localhost:8000/deleted", "http://[::1]:9/x"] {
                #expect(Self.refusal(mail(good), directory: dir) == nil, "\(good)")
                #expect(Self.refusal(deleted(good), directory: dir) == nil, "\(good)")
            }
        }
    }

    @Test("a secret file group or others may open is refused, naming the member and the chmod", arguments: [0o640, 0o604, 0o660] as [mode_t])
    func secretFilesAreOwnerOnly(mode: mode_t) throws {
        try Self.withSecret(mode: mode) { dir in
            let members = [
                (
                    "apps.x.providers.local-userpass.delivery.secret_file",
                    #"{"public_url":"http://a","apps":{"x":{"providers":{"local-userpass":{"delivery":{"webhook":"http://127.0.0.1:1/m","secret_file":"hook.secret"}}}}}}"#
                ),
                (
                    "apps.x.providers.custom-function.secret_file",
                    #"{"public_url":"http://a","apps":{"x":{"providers":{"custom-function":{"url":"http://127.0.0.1:1/f","secret_file":"hook.secret"}}}}}"#
                ),
                ("clients.api.secret_file", #"{"public_url":"http://a","clients":{"api":{"secret_file":"hook.secret"}},"apps":{"x":{}}}"#),
            ]
            for (path, text) in members {
                let message = Self.refusal(text, directory: dir)
                #expect(message?.hasPrefix(path + ":") == true && message?.contains("chmod 600") == true, "\(message ?? "accepted")")
            }
        }
        try Self.withSecret(mode: 0o600) { dir in
            #expect(
                Self.refusal(#"{"public_url":"http://a","clients":{"api":{"secret_file":"hook.secret"}},"apps":{"x":{}}}"#, directory: dir) == nil)
        }
    }
}
