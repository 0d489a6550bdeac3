import Foundation
import Identity
import JOSE
import Logging
import Testing
@testable import Sessions

/// Account mail: the webhook body and signature, the RFC 5322 message of the command, retries,
/// and logs that never hold the token or the address.
@Suite struct AccountMailTests {
    static let token = AccountToken(
        purpose: .reset, token: "SECRET-TOKEN-abc", tokenID: "tid-123", accountID: "u1",
        email: "Ann+x@example.com", expiresAt: 0, createdAt: 0)

    @Test func linkPointsAtTheHostedPage() {
        let mail = AccountMail.link(Self.token, app: "my app", publicURL: "https://auth.example.com/")
        #expect(mail.url == "https://auth.example.com/app/my%20app/reset?token=SECRET-TOKEN-abc&tokenId=tid-123")
        #expect(mail.kind == .reset && mail.email == "Ann+x@example.com")
        let json = try! JSONSerialization.jsonObject(with: Data(mail.json)) as! [String: String]
        #expect(
            json == [
                "type": "reset", "app": "my app", "email": "Ann+x@example.com", "token": "SECRET-TOKEN-abc",
                "tokenId": "tid-123", "url": mail.url!,
            ])
        let notice = try! JSONSerialization.jsonObject(with: Data(AccountMail.notice("register", app: "a", email: "b@c").json)) as! [String: String]
        #expect(notice == ["type": "notice", "app": "a", "email": "b@c", "reason": "register"])
    }

    /// `true` when `header` is `t=<time>,p=mail,v1=<hex HMAC-SHA256(secret, "<time>.mail.<body>")>`, computed here.
    static func signs(_ header: String, secret: [UInt8], body: [UInt8], time: Int64) throws -> Bool {
        let mac = try HMAC.sha256(key: secret, data: Array("\(time).mail.".utf8) + body)
        return header == "t=\(time),p=mail,v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    @Test func signatureOfAKnownInput() throws {
        // printf '1.mail.x' | openssl dgst -sha256 -hmac key
        #expect(
            try CustomFunctionProvider.signature(secret: Array("key".utf8), body: Array("x".utf8), time: 1, purpose: "mail")
                == "t=1,p=mail,v1=93cebe41a1f0fd92289610253323bb642fb794d0365f0f9e3c3dd56f44cba6d1")
    }

    @Test func webhookIsSignedAndRetried() async throws {
        let transport = StubTransport(statuses: [500, 503, 204])
        let logs = LogCapture()
        let secret = Array("webhook secret".utf8)
        let delivery = MailDelivery(
            method: .webhook(url: "http://127.0.0.1:9/mail", secret: secret), transport: transport,
            attempts: 3, backoff: 0, logger: logs.logger, clock: .fixed(Date(timeIntervalSince1970: 1_900_000_000)))
        let mail = AccountMail.link(Self.token, app: "app", publicURL: "http://127.0.0.1:8080")
        #expect(await delivery.send(mail))
        let requests = transport.requests
        #expect(requests.count == 3)
        let last = try #require(requests.last)
        #expect(last.method == "POST" && last.body == mail.json)
        let signature = try #require(last.headers.first { $0.name == "X-TokenTool-Signature" }?.value)
        #expect(try Self.signs(signature, secret: secret, body: mail.json, time: 1_900_000_000))
        #expect(logs.lines.count == 2)
        #expect(logs.lines.allSatisfy { !$0.contains("SECRET-TOKEN") && !$0.contains("Ann+x") && !$0.contains("tid-123") })
    }

    @Test func failedDeliveryIsBoundedAndQuiet() async throws {
        let transport = StubTransport(statuses: Array(repeating: 500, count: 10))
        let logs = LogCapture()
        let delivery = MailDelivery(
            method: .webhook(url: "http://127.0.0.1:9/mail", secret: [1]), transport: transport,
            attempts: 3, backoff: 0, logger: logs.logger)
        #expect(await !delivery.send(AccountMail.link(Self.token, app: "app", publicURL: "http://x")))
        #expect(transport.requests.count == 3)
        #expect(logs.lines.allSatisfy { !$0.contains("SECRET-TOKEN") && !$0.contains("Ann+x") })
    }

    @Test func commandGetsAnRFC5322Message() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("message").path
        let delivery = MailDelivery(
            method: .command(["/bin/sh", "-c", "cat > \"$0\"", out]), transport: StubTransport(statuses: []),
            sender: "Auth <auth@example.com>", backoff: 0, clock: .fixed(Date(timeIntervalSince1970: 0)))
        #expect(await delivery.send(AccountMail.link(Self.token, app: "app", publicURL: "https://auth.example.com")))
        let message = try String(contentsOfFile: out, encoding: .utf8)
        let (head, body) = try #require(message.range(of: "\r\n\r\n").map { (message[..<$0.lowerBound], message[$0.upperBound...]) })
        let headers = head.components(separatedBy: "\r\n")
        #expect(headers.contains("To: Ann+x@example.com"))
        #expect(headers.contains("From: Auth <auth@example.com>"))
        #expect(headers.contains("Subject: Reset your password"))
        #expect(headers.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000"))
        #expect(body.contains("https://auth.example.com/app/app/reset?token=SECRET-TOKEN-abc&tokenId=tid-123"))
        // A failing command is retried, then given up.
        let failing = MailDelivery(method: .command(["/bin/sh", "-c", "exit 75"]), transport: StubTransport(statuses: []), attempts: 2, backoff: 0)
        #expect(await !failing.send(AccountMail.notice("reset", app: "app", email: "a@b.example")))
        let missing = MailDelivery(method: .command(["/nonexistent/sendmail"]), transport: StubTransport(statuses: []), attempts: 1, backoff: 0)
        #expect(await !missing.send(AccountMail.notice("reset", app: "app", email: "a@b.example")))
    }
}

/// Answers with the given statuses in turn, recording the requests.
final class StubTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int]
    private var sent: [HTTPRequest] = []
    init(statuses: [Int]) { self.statuses = statuses }
    var requests: [HTTPRequest] { lock.withLock { sent } }
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let status = lock.withLock { () -> Int in
            sent.append(request)
            return statuses.isEmpty ? 500 : statuses.removeFirst()
        }
        return HTTPResponse(status: status)
    }
}

/// Keeps every log line (message and metadata) for inspection.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [String] = []
    var lines: [String] { lock.withLock { kept } }
    func append(_ line: String) { lock.withLock { kept.append(line) } }
    var logger: Logger { Logger(label: "test") { _ in Handler(capture: self) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            capture.append("\(event.level) \(event.message) \(metadata.merging(event.metadata ?? [:]) { $1 })")
        }
    }
}
