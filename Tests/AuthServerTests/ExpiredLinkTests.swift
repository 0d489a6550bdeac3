@testable import AuthServer
import Foundation
import JOSE
import Testing

/// The hosted pages' expired states over HTTP, with `confirm_token_ttl` and
/// `reset_token_ttl` of one second; and those members' bounds in the config.
@Suite("Expired links over HTTP", .serialized)
struct ExpiredLinkTests {
    static func apps(_ mailFile: String) -> String {
        #"{ "myapp": { "providers": { "local-userpass": { "min_password_length": 8, "confirm_token_ttl": "1s", "reset_token_ttl": "1s", "delivery": { "command": ["/bin/sh", "-c", "cat >> \#(mailFile)"] } } } } }"#
    }

    @Test("an expired confirm link and an expired reset link say so, the reset link on opening", arguments: StoreKind.available)
    func expired(kind: StoreKind) async throws {
        let mailFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mailFile) }
        try await LiveServer.with(kind, apps: Self.apps(mailFile)) { s in
            let email = "late@example.com"
            let created = try await s.call(
                .POST, AccountRoutesTests.prefix + "/register", body: AccountRoutesTests.json(["email": email, "password": "first password"]))
            #expect(created.status == 201)
            let confirm = try AccountRoutesTests.link(try await AccountRoutesTests.mail(mailFile, 1))
            #expect(try await s.call(.POST, AccountRoutesTests.prefix + "/reset/send", body: AccountRoutesTests.json(["email": email])).status == 204)
            let reset = try AccountRoutesTests.link(try await AccountRoutesTests.mail(mailFile, 2))
            try await Task.sleep(for: .milliseconds(2100))

            let confirmPage = try await s.call(.GET, String(confirm.url.dropFirst("http://auth.test".count)))
            #expect(confirmPage.status == 400 && confirmPage.body.contains("This link has expired."), "\(confirmPage.body)")
            let api = try await s.call(
                .POST, AccountRoutesTests.prefix + "/confirm", body: AccountRoutesTests.json(["token": confirm.token, "tokenId": confirm.tokenID]))
            #expect(api.status == 400 && api.errorCode == "UserpassTokenInvalid")

            let resetPath = String(reset.url.dropFirst("http://auth.test".count))
            let opened = try await s.call(.GET, resetPath)
            #expect(opened.status == 400 && opened.body.contains("This link has expired.") && !opened.body.contains("<form"))
            let form = "token=\(reset.token)&tokenId=\(reset.tokenID)&password=second+password&confirm=second+password"
            let posted = try await s.call(.POST, "/app/myapp/reset", body: form, headers: [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(posted.status == 400 && posted.body.contains("This link has expired."))
            let login = try await s.call(
                .POST, AccountRoutesTests.prefix + "/login", body: AccountRoutesTests.json(["username": email, "password": "second password"]))
            #expect(login.status == 401)

        }
    }

    @Test("confirm_token_ttl, reset_token_ttl and the function timeout are bounded")
    func bounds() throws {
        let secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("fn-\(UUID().uuidString)").path
        try String(repeating: "s", count: 40).write(toFile: secretFile, atomically: true, encoding: .utf8)
        chmod(secretFile, 0o600)
        defer { try? FileManager.default.removeItem(atPath: secretFile) }
        func refusal(_ provider: String, _ member: String) -> String? {
            let text = #"{"public_url":"https://a.example","apps":{"a":{"providers":{"\#(provider)":{\#(member)}}}}}"#
            do { _ = try ServerConfig.parse(text, directory: "/srv"); return nil } catch let e as TokenError {
                #expect(e.code.rawValue == "invalid_configuration")
                return e.message
            } catch { return "\(error)" }
        }
        #expect(refusal("local-userpass", #""reset_token_ttl":"31d""#)?.contains("reset_token_ttl") == true)
        #expect(refusal("local-userpass", #""confirm_token_ttl":"0s""#)?.contains("confirm_token_ttl") == true)
        #expect(
            refusal("custom-function", #""url":"http://127.0.0.1:9/f","secret_file":"\#(secretFile)","timeout":"2m""#)?.contains("timeout") == true)
        let c = try ServerConfig.parse(
            #"{"public_url":"https://a.example","apps":{"a":{"providers":{"local-userpass":{"confirm_token_ttl":"2d","reset_token_ttl":"10m"}}}}}"#,
            directory: "/srv")
        guard let l = c.apps["a"]?.providers["local-userpass"]?.config(of: UserpassLogin.self) else { Issue.record("no local-userpass"); return }
        #expect(l.confirmTokenTTL == 2 * 86_400 && l.resetTokenTTL == 600)
    }
}
