@testable import AuthServer
import CLIHarness
import Foundation
import JOSE
import ProviderStandIn
@_spi(Testing) import Sessions
import Testing

/// `confirm/call` and `reset/call` over HTTP, on every store, against a stand-in function on
/// 127.0.0.1 that checks our signature as an app would (HMAC-SHA256 under the shared secret)
/// and answers by the email's local part (`success@…`, `pending@…`, `fail@…`, `refuse@…`, …).
@Suite("confirm/call and reset/call over HTTP", .serialized)
struct AccountCallTests {
    static let secret = "function-secret-0123456789abcdef-0123456789"
    static let prefix = LiveServer.base + "/app/callapp/auth/providers/local-userpass"

    struct Live {
        let s: LiveServer
        let function: FunctionStandIn
        let mailFile: String

        /// The payloads the function got for `email` (as registered), oldest first, each with
        /// whether its signature was valid.
        func calls(_ email: String) -> [(payload: JSONObject, signed: Bool)] {
            function.received.compactMap { r in
                guard let o = try? JSONValue(parsing: String(decoding: r.body, as: UTF8.self)).objectValue, o["email"]?.stringValue == email
                else { return nil }
                return (o, function.signatureIsValid(r.header("X-TokenTool-Signature"), body: r.body, purpose: o["type"]?.stringValue ?? ""))
            }
        }

        func post(_ route: String, _ body: [String: Any], app: String = "callapp") async throws -> LiveServer.Answer {
            let text = String(decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), as: UTF8.self)
            return try await s.call(.POST, LiveServer.base + "/app/\(app)/auth/providers/local-userpass" + route, body: text)
        }

        func register(_ email: String, _ password: String = "first password", app: String = "callapp") async throws {
            let r = try await post("/register", ["email": email, "password": password], app: app)
            #expect(r.status == 201, "\(email): \(r.body)")
        }

        func login(_ email: String, _ password: String) async throws -> LiveServer.Answer {
            try await post("/login", ["username": email, "password": password])
        }

        var accounts: AppAccounts { s.server.accounts["callapp"]! }

        /// Waits up to 10 s for a mail holding `text`.
        func mailArrives(_ text: String) async throws -> Bool {
            for _ in 0..<200 {
                if readGrowingFile(mailFile).contains(text) { return true }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            return false
        }
    }

    /// A server with `callapp` (local-userpass + the stand-in function, 3 s timeout: room for a busy CI machine), `sigapp`
    /// (the function under another secret) and `plainapp` (no custom-function provider).
    static func with(_ kind: StoreKind, limits: String = "", _ body: (Live) async throws -> Void) async throws {
        let function = try await FunctionStandIn.start(secret: Array(secret.utf8))
        let mailFile = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: mailFile) }
        let userpass = #"{ "min_password_length": 8, "delivery": { "command": ["/bin/sh", "-c", "cat >> \#(mailFile)"] } }"#
        let apps = #"""
            { "callapp": { "providers": { "local-userpass": \#(userpass),
                                          "custom-function": { "url": "\#(function.url)", "secret_file": "fn.secret", "timeout": "3s" } } },
              "sigapp": { "providers": { "local-userpass": \#(userpass),
                                         "custom-function": { "url": "\#(function.url)", "secret_file": "other.secret" } } },
              "plainapp": { "providers": { "local-userpass": \#(userpass) } } }
            """#
        let files = ["fn.secret": secret + "\n", "other.secret": String(secret.reversed())]
        do {
            try await LiveServer.with(kind, apps: apps, extra: limits, files: files) { s in
                try await body(Live(s: s, function: function, mailFile: mailFile))
            }
            try await function.shutdown()
        } catch {
            try? await function.shutdown()
            throw error
        }
    }

    @Test("confirm/call: success confirms, pending leaves the token to the app, fail and 4xx refuse", arguments: StoreKind.available)
    func confirmCall(kind: StoreKind) async throws {
        try await Self.with(kind) { t in
            for email in ["success@example.com", "pending@example.com", "fail@example.com", "refuse@example.com"] { try await t.register(email) }

            let done = try await t.post("/confirm/call", ["email": "SUCCESS@example.com", "password": "ignored"])
            #expect(done.status == 204, "\(done.body)")
            let sent = try #require(t.calls("success@example.com").first)
            #expect(sent.signed)
            #expect(Set(sent.payload.keys) == ["type", "app", "email", "token", "tokenId"])
            #expect(sent.payload["type"] == "confirm" && sent.payload["app"] == "callapp")
            #expect(try await t.login("success@example.com", "first password").status == 200)
            let token = try #require(sent.payload["token"]?.stringValue), tokenID = try #require(sent.payload["tokenId"]?.stringValue)
            let reused = try await t.post("/confirm", ["token": token, "tokenId": tokenID])
            #expect(reused.status == 400 && reused.errorCode == "UserpassTokenInvalid")
            // Already confirmed: answered alike; the function gets a token that confirms nothing.
            let again = try await t.post("/confirm/call", ["email": "success@example.com"])
            #expect(again.status == 204 && t.calls("success@example.com").count == 2)
            let unstored = try #require(t.calls("success@example.com").last?.payload)
            let tried = try await t.post(
                "/confirm", ["token": unstored["token"]?.stringValue ?? "", "tokenId": unstored["tokenId"]?.stringValue ?? ""])
            #expect(tried.status == 400 && tried.errorCode == "UserpassTokenInvalid")

            let pending = try await t.post("/confirm/call", ["email": "pending@example.com"])
            #expect(pending.status == 204)
            #expect(try await t.login("pending@example.com", "first password").errorCode == "AuthError")
            let handed = try #require(t.calls("pending@example.com").first?.payload)
            let completed = try await t.post(
                "/confirm", ["token": handed["token"]?.stringValue ?? "", "tokenId": handed["tokenId"]?.stringValue ?? ""])
            #expect(completed.status == 204)
            #expect(try await t.login("pending@example.com", "first password").status == 200)
            let twice = try await t.post("/confirm", ["token": handed["token"]?.stringValue ?? "", "tokenId": handed["tokenId"]?.stringValue ?? ""])
            #expect(twice.status == 400 && twice.errorCode == "UserpassTokenInvalid")

            let failed = try await t.post("/confirm/call", ["email": "fail@example.com"])
            #expect(failed.status == 401 && failed.errorCode == "AuthError")
            let refusedToken = try #require(t.calls("fail@example.com").first?.payload)
            let late = try await t.post(
                "/confirm", ["token": refusedToken["token"]?.stringValue ?? "", "tokenId": refusedToken["tokenId"]?.stringValue ?? ""])
            #expect(late.status == 400 && late.errorCode == "UserpassTokenInvalid", "a refused token is spent")
            let refused = try await t.post("/confirm/call", ["email": "refuse@example.com"])
            #expect(
                refused.status == 401 && refused.errorCode == "AuthError" && refused["error"]?.contains("no such user") == true, "\(refused.body)")
            #expect(try await t.login("fail@example.com", "first password").status == 401)

            // An unknown email: the function is called as for a registered one, with a token that
            // was never stored, and its answer is answered alike.
            let unknown = try await t.post("/confirm/call", ["email": "pending+nobody@example.com"])
            #expect(unknown.status == pending.status && unknown.body == pending.body && unknown.headers.count == pending.headers.count)
            let decoy = try #require(t.calls("pending+nobody@example.com").first)
            #expect(decoy.signed && Set(decoy.payload.keys) == ["type", "app", "email", "token", "tokenId"])
            #expect(decoy.payload["token"]?.stringValue?.count == handed["token"]?.stringValue?.count)
            let useless = try await t.post(
                "/confirm", ["token": decoy.payload["token"]?.stringValue ?? "", "tokenId": decoy.payload["tokenId"]?.stringValue ?? ""])
            #expect(useless.status == 400 && useless.errorCode == "UserpassTokenInvalid")
        }
    }

    /// Whatever the function answers (success, pending, fail, a 4xx, a 5xx, garbage, nothing),
    /// a registered and an unknown email get the same status and body, on both routes, and the
    /// function is called for both: the answer cannot tell whether an email is registered.
    @Test("no enumeration: registered and unknown emails are answered alike, whatever the function says", arguments: StoreKind.available)
    func noEnumeration(kind: StoreKind) async throws {
        try await Self.with(kind) { t in
            for local in ["success", "pending", "fail", "refuse", "crash", "not-json", "no-status"] {
                let known = "\(local)+known@example.com", unknown = "\(local)+unknown@example.com"
                try await t.register(known)
                for route in ["/confirm/call", "/reset/call"] {
                    var answers: [LiveServer.Answer] = []
                    for email in [known, unknown] {
                        // A fresh registration for each route, so that confirm/call has an unconfirmed account.
                        answers.append(try await t.post(route, ["email": email, "password": "long enough"]))
                    }
                    let (k, u) = (answers[0], answers[1])
                    #expect(k.status == u.status && k.errorCode == u.errorCode, "\(local) \(route): \(k.status) \(k.body) / \(u.status) \(u.body)")
                    #expect(
                        k.body.replacingOccurrences(of: known, with: "") == u.body.replacingOccurrences(of: unknown, with: ""), "\(local) \(route)")
                    #expect(!u.body.contains("127.0.0.1") && !k.body.contains("127.0.0.1"), "the function's address stays private: \(k.body)")
                }
                #expect(t.calls(known).count == 2 && t.calls(unknown).count == 2, "\(local): the function is called for both")
            }
        }
    }

    @Test("a function that fails, hangs or answers too much is 502; the account stays as it was", arguments: StoreKind.available)
    func functionFailures(kind: StoreKind) async throws {
        try await Self.with(kind) { t in
            for local in ["crash", "stall", "huge", "not-json", "no-status"] {
                let email = local + "@example.com"
                try await t.register(email)
                let started = ContinuousClock.now
                let answer = try await t.post("/confirm/call", ["email": email])
                let took = ContinuousClock.now - started
                #expect(answer.status == 502 && answer.errorCode == "FunctionExecutionError", "\(local): \(answer.body)")
                #expect(!answer.body.contains("127.0.0.1"), "the function's address is not the client's business: \(answer.body)")
                #expect(took < .seconds(5), "\(local) took \(took)")
                if local == "stall" {
                    #expect(took >= .seconds(3) && answer["error"]?.contains("did not answer within 3s") == true, "\(answer.body)")
                }
                #expect(try await t.login(email, "first password").status == 401, "\(local): still unconfirmed")
            }
            let reset = try await t.post("/reset/call", ["email": "crash@example.com", "password": "another password"])
            #expect(reset.status == 502 && reset.errorCode == "FunctionExecutionError")
            // The operator's log names the function's address for the failures on the way there
            // (the stall, the oversized answer), which the client's answer leaves out.
            let named = t.s.logs.all.filter { $0.contains("outside call failed") && $0.contains("POST " + t.function.url) }
            #expect(named.count == 2, "\(t.s.logs.all.filter { $0.contains("outside") })")
            #expect(named.contains { $0.contains("did not answer within 3s") } && named.contains { $0.contains("larger than 65536 bytes") })
        }
    }

    @Test("reset/call: success sets the password and ends sessions; pending leaves the token to the app", arguments: StoreKind.available)
    func resetCall(kind: StoreKind) async throws {
        try await Self.with(kind) { t in
            for email in ["success+r@example.com", "pending+r@example.com", "fail+r@example.com"] { try await t.register(email) }
            #expect(try await t.post("/confirm/call", ["email": "success+r@example.com"]).status == 204)
            let session = try await t.login("success+r@example.com", "first password")
            #expect(session.status == 200)

            let done = try await t.post(
                "/reset/call", ["email": "Success+R@example.com", "password": "brand new pässword", "arguments": [1, "two"]])
            #expect(done.status == 204, "\(done.body)")
            let sent = try #require(t.calls("success+r@example.com").last)
            #expect(sent.signed && sent.payload["type"] == "reset" && sent.payload["app"] == "callapp")
            #expect(sent.payload["arguments"] == .array([.int(1), .string("two")]), "\(sent.payload)")
            #expect(sent.payload["password"] == nil, "the new password never goes to the function")
            #expect(try await t.login("success+r@example.com", "first password").status == 401)
            #expect(try await t.login("success+r@example.com", "brand new pässword").status == 200)
            let refresh = try await t.s.call(.POST, LiveServer.base + "/auth/session", bearer: session["refresh_token"])
            #expect(refresh.status == 401 && refresh.errorCode == "InvalidSession", "the reset ended every session")
            #expect(try await t.mailArrives("Subject: Your password was changed"))
            let reused = try await t.post(
                "/reset",
                [
                    "token": sent.payload["token"]?.stringValue ?? "", "tokenId": sent.payload["tokenId"]?.stringValue ?? "",
                    "password": "third password",
                ])
            #expect(reused.status == 400 && reused.errorCode == "UserpassTokenInvalid")

            #expect(try await t.post("/reset/call", ["email": "pending+r@example.com", "password": "not this one"]).status == 204)
            let handed = try #require(t.calls("pending+r@example.com").last?.payload)
            #expect(handed["arguments"] == nil)
            let completed = try await t.post(
                "/reset",
                [
                    "token": handed["token"]?.stringValue ?? "", "tokenId": handed["tokenId"]?.stringValue ?? "",
                    "password": "the app's choice",
                ])
            #expect(completed.status == 204)
            #expect(try await t.login("pending+r@example.com", "the app's choice").status == 200)
            #expect(try await t.login("pending+r@example.com", "not this one").status == 401)

            let failed = try await t.post("/reset/call", ["email": "fail+r@example.com", "password": "a new password"])
            #expect(failed.status == 401 && failed.errorCode == "AuthError")
            let spent = try #require(t.calls("fail+r@example.com").last?.payload)
            let late = try await t.post(
                "/reset", ["token": spent["token"]?.stringValue ?? "", "tokenId": spent["tokenId"]?.stringValue ?? "", "password": "a new password"])
            #expect(late.status == 400 && late.errorCode == "UserpassTokenInvalid")

            let calls = t.function.received.count
            let short = try await t.post("/reset/call", ["email": "pending+r@example.com", "password": "short"])
            #expect(short.status == 400 && short.errorCode == "InvalidPassword")
            let badArguments = try await t.post("/reset/call", ["email": "pending+r@example.com", "password": "long enough", "arguments": "x"])
            #expect(badArguments.status == 400 && badArguments.errorCode == "InvalidParameter")
            #expect(t.function.received.count == calls)

            // Known and unknown emails: the same answer after the same work (one scrypt each).
            let hasher = t.accounts.manager.newPasswordHasher  // new passwords hash on their own budget
            var before = await hasher.derivations()
            let known = try await t.post("/reset/call", ["email": "pending+r@example.com", "password": "long enough"])
            let knownWork = await hasher.derivations() - before
            before = await hasher.derivations()
            let unknown = try await t.post("/reset/call", ["email": "pending+unknown@example.com", "password": "long enough"])
            let unknownWork = await hasher.derivations() - before
            #expect(known.status == 204 && unknown.status == 204 && known.body == unknown.body)
            #expect(knownWork == 1 && unknownWork == 1)
            #expect(t.calls("pending+unknown@example.com").count == 1)
        }
    }

    @Test("reset/call from realm-web: canonical Extended JSON arguments reach the function relaxed", arguments: StoreKind.available)
    func resetCallExtendedJSON(kind: StoreKind) async throws {
        try await Self.with(kind) { t in
            try await t.register("pending+x@example.com")
            // callResetPasswordFunction(email, password, 1, "two", 2^53 + 1, 2.5) as realm-web serializes it.
            let arguments: [Any] = [["$numberInt": "1"], "two", ["$numberLong": "9007199254740993"], ["$numberDouble": "2.5"]]
            let answer = try await t.post("/reset/call", ["email": "pending+x@example.com", "password": "long enough", "arguments": arguments])
            #expect(answer.status == 204, "\(answer.body)")
            let sent = try #require(t.calls("pending+x@example.com").last?.payload)
            #expect(sent["arguments"] == [.int(1), "two", .object(["$numberLong": "9007199254740993"]), .double(2.5)], "\(sent)")
            let bad = try await t.post(
                "/reset/call", ["email": "pending+x@example.com", "password": "long enough", "arguments": [["$numberInt": 1]]])
            #expect(bad.status == 400 && bad.errorCode == "InvalidParameter")
        }
    }

    @Test("no function configured: 400; our signature under another secret is refused; throttled per email", arguments: StoreKind.available)
    func configurationSignatureAndLimits(kind: StoreKind) async throws {
        try await Self.with(kind, limits: #""limits": { "mail_per_address": "2/1h" },"#) { t in
            for route in ["/confirm/call", "/reset/call"] {
                let plain = try await t.post(route, ["email": "a@example.com", "password": "long enough"], app: "plainapp")
                #expect(
                    plain.status == 400 && plain.errorCode == "BadRequest" && plain["error"]?.contains("custom-function") == true, "\(plain.body)")
            }

            try await t.register("success+sig@example.com", app: "sigapp")
            let forged = try await t.post("/confirm/call", ["email": "success+sig@example.com"], app: "sigapp")
            #expect(forged.status == 401 && forged.errorCode == "AuthError" && forged["error"]?.contains("bad signature") == true, "\(forged.body)")
            #expect(t.calls("success+sig@example.com").map(\.signed) == [false])
            let account = try await t.s.server.accounts["sigapp"]!.manager.account(email: "success+sig@example.com")
            #expect(account != nil && account?.confirmedAt == nil, "never confirmed on a refused signature")

            // mail_per_address counts every call per email, known or not (key call:<email>).
            for email in ["pending@example.com", "pending+nobody@example.com"] {
                if email == "pending@example.com" { try await t.register(email) }
                for _ in 0..<2 { #expect(try await t.post("/confirm/call", ["email": email]).status == 204) }
                let third = try await t.post("/reset/call", ["email": email, "password": "long enough"])
                #expect(third.status == 429 && third.errorCode == "TooManyRequests" && (Int(third.header("Retry-After") ?? "") ?? 0) > 0)
            }
        }
    }

    /// One client making up emails: each unknown email is a fresh `mail_per_address` key, so only
    /// `call_per_address` (both routes together) bounds the calls it can make the function do.
    @Test("call_per_address: one client's made-up emails are refused after N, before the function is called", arguments: StoreKind.available)
    func throttledPerClientAddress(kind: StoreKind) async throws {
        try await Self.with(kind, limits: #""limits": { "call_per_address": "3/1h" },"#) { t in
            for (n, route) in ["/confirm/call", "/reset/call", "/confirm/call"].enumerated() {
                let answer = try await t.post(route, ["email": "pending+made-up-\(n)@example.com", "password": "long enough"])
                #expect(answer.status == 204, "\(n): \(answer.body)")
            }
            let hasher = t.accounts.manager.newPasswordHasher  // new passwords hash on their own budget
            let before = await hasher.derivations()
            let refused = try await t.post("/reset/call", ["email": "pending+made-up-3@example.com", "password": "long enough"])
            #expect(
                refused.status == 429 && refused.errorCode == "TooManyRequests" && (Int(refused.header("Retry-After") ?? "") ?? 0) > 0,
                "\(refused.body)")
            #expect(await hasher.derivations() == before, "refused before the new password is hashed")
            #expect(t.function.received.count == 3, "the refused request never reached the function")
            #expect(t.calls("pending+made-up-3@example.com").isEmpty)
        }
    }
}
