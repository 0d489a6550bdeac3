import AuthServer
import Foundation
import Identity
import JOSE
import Sessions
import Testing

/// An email is one plain address, and the mail command gets it as an argument, never from `To:`.
@Suite("Mail recipients", .serialized)
struct MailRecipientTests {
    static let prefix = AccountRoutesTests.prefix

    @Test("a list, a display name, an option or a program as the email: 400 InvalidParameter, nothing mailed", arguments: StoreKind.available)
    func oneAddressOnly(kind: StoreKind) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The command records its arguments (the recipient is appended: `$0` of `sh -c`) and the message.
        let apps =
            #"{ "myapp": { "providers": { "local-userpass": { "min_password_length": 8, "delivery": { "command": ["/bin/sh", "-c", "echo \"$0\" >> \#(dir)/args; cat >> \#(dir)/mail"] } } } } }"#
        try await LiveServer.with(kind, apps: apps) { s in
            for bad in [
                "victim@x.example,attacker@y.example", "victim@x.example attacker@y.example", "Victim <victim@x.example>",
                "victim@x.example;attacker@y.example", "-oQ/tmp/x@example.com", "|/bin/sh@example.com", "\"a,b\"@example.com",
                "a@b", "a@example..com", "a@-x.example", "a..b@example.com", ".a@example.com", "a@[127.0.0.1]",
            ] {
                let answer = try await s.call(
                    .POST, Self.prefix + "/register", body: AccountRoutesTests.json(["email": bad, "password": "a fine password"]))
                #expect(answer.status == 400 && answer.errorCode == "InvalidParameter", "\(bad): \(answer.status)")
            }
            for good in ["ann.o'neil+tag@example.co.uk", "jörg@bücher.example", "a_b-c@sub-domain.example.org"] {
                let answer = try await s.call(
                    .POST, Self.prefix + "/register", body: AccountRoutesTests.json(["email": good, "password": "a fine password"]))
                #expect(answer.status == 201, "\(good): \(answer.status) \(answer.body)")
            }
            let sent = await FaultLoad.eventually(within: 10) {
                ((try? String(contentsOfFile: dir + "/args", encoding: .utf8)) ?? "").split(separator: "\n").count >= 3
            }
            #expect(sent)
            let args = ((try? String(contentsOfFile: dir + "/args", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            #expect(Set(args) == ["ann.o'neil+tag@example.co.uk", "jörg@bücher.example", "a_b-c@sub-domain.example.org"], "\(args)")
        }
    }

    @Test("a delivery command with -t is refused: the server passes the recipient itself")
    func dashTIsRefused() throws {
        for argv in [#"["/usr/sbin/sendmail", "-t"]"#, #"["/usr/sbin/sendmail", "-t", "-i"]"#, #"["/usr/sbin/sendmail", "-ti"]"#] {
            let text = #"{"public_url":"http://a","apps":{"x":{"providers":{"local-userpass":{"delivery":{"command":\#(argv)}}}}}}"#
            #expect {
                try ServerConfig.parse(text, directory: "/srv")
            } throws: { e in
                (e as? TokenError)?.message.hasPrefix("apps.x.providers.local-userpass.delivery.command:") == true
            }
        }
        _ = try ServerConfig.parse(
            #"{"public_url":"http://a","apps":{"x":{"providers":{"local-userpass":{"delivery":{"command":["/usr/sbin/sendmail", "-i"]}}}}}}"#,
            directory: "/srv")
    }

    @Test("MailDelivery never runs the command for a recipient that is not one plain address")
    func deliveryRefusesALoadedRecipient() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let delivery = MailDelivery(
            method: .command(["/bin/sh", "-c", "echo \"$0\" >> \(dir)/args"]), transport: NoTransport(), attempts: 1, backoff: 0)
        #expect(await !delivery.send(AccountMail.notice("reset", app: "a", email: "victim@x.example,attacker@y.example")))
        #expect(!FileManager.default.fileExists(atPath: dir + "/args"))
        #expect(await delivery.send(AccountMail.notice("reset", app: "a", email: "victim@x.example")))
        #expect(try String(contentsOfFile: dir + "/args", encoding: .utf8) == "victim@x.example\n")
    }
}

/// A transport for deliveries that never use one.
private struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw TokenError(.providerUnavailable, "no transport") }
}
