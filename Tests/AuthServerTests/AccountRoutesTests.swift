import CLIHarness
import Foundation
import JOSE
import Testing

/// The `local-userpass` routes and pages over real HTTP, on every store: mail goes to a
/// sendmail-compatible command that appends each message to a file the test reads.
@Suite("Email/password accounts over HTTP", .serialized)
struct AccountRoutesTests {
    static func apps(_ mailFile: String) -> String {
        #"{ "myapp": { "providers": { "local-userpass": { "min_password_length": 8, "delivery": { "command": ["/bin/sh", "-c", "cat >> \#(mailFile)"] } } } } }"#
    }

    static let prefix = LiveServer.base + "/app/myapp/auth/providers/local-userpass"

    /// Waits for the `n`th mail (1-based) in `file` and returns it.
    static func mail(_ file: String, _ n: Int) async throws -> String {
        for _ in 0..<200 {
            let text = readGrowingFile(file)
            let mails = text.components(separatedBy: "From: ").dropFirst()
            if mails.count >= n { return String(mails[mails.index(mails.startIndex, offsetBy: n - 1)]) }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw HarnessError("mail \(n) never came")
    }

    /// The token and token id of the link in a mail.
    static func link(_ mail: String) throws -> (url: String, token: String, tokenID: String) {
        let line = try #require(mail.components(separatedBy: "\r\n").first { $0.hasPrefix("http://auth.test/app/myapp/") })
        let items = try #require(URLComponents(string: line)?.queryItems)
        return (line, try #require(items.first { $0.name == "token" }?.value), try #require(items.first { $0.name == "tokenId" }?.value))
    }

    static func json(_ pairs: [String: String]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: pairs, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("register, confirm, login, reset through the page", arguments: StoreKind.available)
    func wholeFlow(kind: StoreKind) async throws {
        let mailFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mailFile) }
        try await LiveServer.with(kind, apps: Self.apps(mailFile)) { s in
            let email = "Ann.Example@example.com", first = "first pässword", second = "second pässword"
            let created = try await s.call(.POST, Self.prefix + "/register", body: Self.json(["email": email, "password": first]))
            #expect(created.status == 201 && created.body == "{}")
            let confirm = try Self.link(try await Self.mail(mailFile, 1))
            // A taken address answers exactly as a new one; its owner gets a notice.
            let taken = try await s.call(
                .POST, Self.prefix + "/register", body: Self.json(["email": email.uppercased(), "password": "other password"]))
            #expect(taken.status == created.status && taken.body == created.body)
            #expect(try await Self.mail(mailFile, 2).contains("Subject: Someone tried to register with your address"))
            // The password rule: 129 characters, 7 characters.
            let long = try await s.call(
                .POST, Self.prefix + "/register", body: Self.json(["email": "b@example.com", "password": String(repeating: "p", count: 129)]))
            #expect(long.status == 400 && long.errorCode == "InvalidPassword")
            let short = try await s.call(.POST, Self.prefix + "/register", body: Self.json(["email": "b@example.com", "password": "1234567"]))
            #expect(short.status == 400 && short.errorCode == "InvalidPassword")

            let login = Self.json(["username": email.lowercased(), "password": first])
            let early = try await s.call(.POST, Self.prefix + "/login", body: login)
            #expect(early.status == 401 && early.errorCode == "AuthError")
            let confirmed = try await s.call(.POST, Self.prefix + "/confirm", body: Self.json(["token": confirm.token, "tokenId": confirm.tokenID]))
            #expect(confirmed.status == 204)
            let again = try await s.call(.POST, Self.prefix + "/confirm", body: Self.json(["token": confirm.token, "tokenId": confirm.tokenID]))
            #expect(again.status == 400 && again.errorCode == "UserpassTokenInvalid")
            let signedIn = try await s.call(.POST, Self.prefix + "/login", body: login)
            #expect(signedIn.status == 200 && signedIn["refresh_token"] != nil)

            // reset/send answers alike for an unknown address.
            let unknown = try await s.call(.POST, Self.prefix + "/reset/send", body: Self.json(["email": "nobody@example.com"]))
            let known = try await s.call(.POST, Self.prefix + "/reset/send", body: Self.json(["email": email]))
            #expect(unknown.status == 204 && known.status == 204 && unknown.body == known.body)
            let reset = try Self.link(try await Self.mail(mailFile, 3))
            let path = String(reset.url.dropFirst("http://auth.test".count))
            let page = try await s.call(.GET, path)
            #expect(page.status == 200 && page.body.contains("Choose a new password"))
            #expect(page.header("Referrer-Policy") == "no-referrer")
            #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
            func post(_ password: String, _ repeated: String) async throws -> LiveServer.Answer {
                let form = ["token": reset.token, "tokenId": reset.tokenID, "password": password, "confirm": repeated].map {
                    "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                }.joined(separator: "&")
                return try await s.call(
                    .POST, "/app/myapp/reset", body: form,
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", "null")])
            }
            let tooShort = try await post("short", "short")
            #expect(tooShort.status == 400 && tooShort.body.contains("The password is too short"))
            let done = try await post(second, second)
            #expect(done.status == 200 && done.body.contains("Your password was changed"))
            let used = try await post(second, second)
            #expect(used.body.contains("This link was already used."))
            let reopened = try await s.call(.GET, path)
            #expect(reopened.status == 400 && reopened.body.contains("This link was already used.") && !reopened.body.contains("<form"))
            #expect(try await Self.mail(mailFile, 4).contains("Subject: Your password was changed"))

            let old = try await s.call(.POST, Self.prefix + "/login", body: login)
            #expect(old.status == 401 && old.errorCode == "AuthError")
            let renewed = try await s.call(.POST, Self.prefix + "/login", body: Self.json(["username": email, "password": second]))
            #expect(renewed.status == 200)
            // The reset ended the earlier session.
            let refresh = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: signedIn["refresh_token"])
            #expect(refresh.status == 401 && refresh.errorCode == "InvalidSession")
        }
    }

    @Test("1,000 guesses against one account are throttled as documented", arguments: StoreKind.available)
    func guessing(kind: StoreKind) async throws {
        let mailFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mailFile) }
        try await LiveServer.with(kind, apps: Self.apps(mailFile)) { s in
            _ = try await s.call(
                .POST, Self.prefix + "/register", body: Self.json(["email": "target@example.com", "password": "the right password"]))
            var statuses: [Int: Int] = [:]
            var retryAfter: Set<String> = []
            for i in 0..<1000 {
                let answer = try await s.call(
                    .POST, Self.prefix + "/login", body: Self.json(["username": "target@example.com", "password": "guess \(i)"]))
                statuses[answer.status, default: 0] += 1
                if answer.status == 429 {
                    #expect(answer.errorCode == "TooManyRequests")
                    retryAfter.insert(answer.header("Retry-After") ?? "none")
                }
            }
            #expect(statuses == [401: 10, 429: 990])
            #expect(!retryAfter.contains("none") && retryAfter.allSatisfy { (Int($0) ?? 0) > 0 })
        }
    }
}
