import Foundation
import JOSE
import Testing

/// `confirm/send` and `reset/send`: one live token per account and purpose, the store work after
/// the answer, counted per client address.
@Suite("confirm/send and reset/send", .serialized)
struct AccountSendTests {
    static let prefix = AccountRoutesTests.prefix

    /// A server whose mail lands in a file, with `ann@example.com` registered (its confirmation
    /// is the file's first mail).
    static func withAnn(_ kind: StoreKind, limits: String, _ body: (LiveServer, String) async throws -> Void) async throws {
        let mailFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mailFile) }
        try await LiveServer.with(kind, apps: AccountRoutesTests.apps(mailFile), extra: #""limits": {\#(limits)},"#) { s in
            #expect(
                try await s.call(
                    .POST, prefix + "/register", body: AccountRoutesTests.json(["email": "ann@example.com", "password": "first password"])
                ).status == 201)
            try await body(s, mailFile)
        }
    }

    @Test("each send ends the account's earlier link of that purpose: only the newest works", arguments: StoreKind.available)
    func oneLiveTokenPerPurpose(kind: StoreKind) async throws {
        try await Self.withAnn(kind, limits: #""mail_per_address": "100/1h""#) { s, mailFile in
            let email = "ann@example.com"
            let first = try AccountRoutesTests.link(try await AccountRoutesTests.mail(mailFile, 1))
            #expect(try await s.call(.POST, Self.prefix + "/confirm/send", body: AccountRoutesTests.json(["email": email])).status == 204)
            let second = try AccountRoutesTests.link(try await AccountRoutesTests.mail(mailFile, 2))
            #expect(try await s.call(.POST, Self.prefix + "/reset/send", body: AccountRoutesTests.json(["email": email])).status == 204)
            let reset1 = try AccountRoutesTests.link(try await AccountRoutesTests.mail(mailFile, 3))
            #expect(try await s.call(.POST, Self.prefix + "/reset/send", body: AccountRoutesTests.json(["email": email])).status == 204)
            let reset2 = try AccountRoutesTests.link(try await AccountRoutesTests.mail(mailFile, 4))

            let stale = try await s.call(
                .POST, Self.prefix + "/confirm", body: AccountRoutesTests.json(["token": first.token, "tokenId": first.tokenID]))
            #expect(stale.status == 400 && stale.errorCode == "UserpassTokenInvalid", "the first confirmation link still works: \(stale.status)")
            let page = try await s.call(.GET, String(reset1.url.dropFirst("http://auth.test".count)))
            #expect(page.status == 400 && page.body.contains("This link has expired."), "the first reset link: \(page.status)")
            // The newest of each purpose still works; a reset link did not end the confirmation link.
            #expect(
                try await s.call(.POST, Self.prefix + "/confirm", body: AccountRoutesTests.json(["token": second.token, "tokenId": second.tokenID]))
                    .status == 204)
            let done = try await s.call(
                .POST, Self.prefix + "/reset",
                body: AccountRoutesTests.json(["token": reset2.token, "tokenId": reset2.tokenID, "password": "second password"]))
            #expect(done.status == 204)
        }
    }

    @Test("sends are limited per client address, both routes together, registered email or not", arguments: StoreKind.available)
    func sendsAreThrottled(kind: StoreKind) async throws {
        try await Self.withAnn(kind, limits: #""send_per_address": "3/5m""#) { s, _ in
            var statuses: [Int] = []
            for (route, email) in [
                ("/confirm/send", "ann@example.com"), ("/reset/send", "nobody@example.com"), ("/reset/send", "ann@example.com"),
                ("/confirm/send", "nobody@example.com"),
            ] {
                let answer = try await s.call(.POST, Self.prefix + route, body: AccountRoutesTests.json(["email": email]))
                statuses.append(answer.status)
                if answer.status == 204 { #expect(answer.body.isEmpty) }
                if answer.status == 429 { #expect(Int(answer.header("Retry-After") ?? "") ?? 0 > 0) }
            }
            #expect(statuses == [204, 204, 204, 429], "\(statuses)")
        }
    }
}
