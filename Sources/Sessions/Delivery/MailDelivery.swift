public import Foundation
public import Identity
public import JOSE
public import Logging

/// Sends ``AccountMail``s through the `delivery` member: a signed JSON webhook, or a
/// sendmail-compatible command fed the message on standard input.
///
/// ``send(_:)`` never throws and never tells the caller's client anything: it retries a failed
/// delivery a bounded number of times, then logs the failure (kind, app, attempt, status; never
/// the token, the link or the address). Callers start it detached from the request, so that a
/// slow or failing mail server changes neither the answer nor its timing.
///
/// ```swift
/// let delivery = MailDelivery(method: .webhook(url: "http://127.0.0.1:8025/mail", secret: secret), transport: transport)
/// Task { await delivery.send(AccountMail.link(token, app: "myapp", publicURL: "https://auth.example.com")) }
/// ```
public struct MailDelivery: Sendable {
    /// Where mail goes.
    public enum Method: Sendable {
        /// POST of ``AccountMail/json`` with `X-TokenTool-Signature` under `secret`, signed as the
        /// custom-function provider signs (`CustomFunctionProvider.signature`), for the purpose `mail`.
        case webhook(url: String, secret: [UInt8])
        /// Runs `argv` with the recipient's address appended as its last argument
        /// (`["/usr/sbin/sendmail", "-i"]` runs `sendmail -i ADDRESS`) and the message on standard
        /// input; exit 0 is success. The recipient never comes from the message's `To:` (no `-t`).
        case command([String])
    }

    public var method: Method
    public var transport: any HTTPTransport
    /// The `From` of command mails.
    public var sender: String
    /// Attempts per mail (the first included). Default 3.
    public var attempts: Int
    /// Seconds before the second attempt; doubled for each later one. Default 1.
    public var backoff: TimeInterval
    /// Seconds one attempt may take. Default 10.
    public var timeout: TimeInterval
    public var logger: Logger
    public var clock: TokenClock

    public init(
        method: Method, transport: any HTTPTransport, sender: String = "TokenTool <no-reply@localhost>",
        attempts: Int = 3, backoff: TimeInterval = 1, timeout: TimeInterval = 10,
        logger: Logger = Logger(label: "tokentool.mail"), clock: TokenClock = .system
    ) {
        self.method = method
        self.transport = transport
        self.sender = sender
        self.attempts = max(1, min(attempts, 10))
        self.backoff = max(0, backoff)
        self.timeout = timeout
        self.logger = logger
        self.clock = clock
    }

    /// Delivers `mail`, retrying; `true` when an attempt succeeded.
    @discardableResult
    public func send(_ mail: AccountMail) async -> Bool {
        var delay = backoff
        for attempt in 1...attempts {
            let failure: String
            do {
                failure = try await attemptOnce(mail) ?? ""
                if failure.isEmpty { return true }
            } catch {
                failure = (error as? TokenError)?.code.rawValue ?? "error"
            }
            // Kind, app and why: never the token, the link or the address.
            logger.warning(
                "mail delivery failed",
                metadata: [
                    "kind": "\(mail.kind.rawValue)", "app": "\(mail.app.prefix(64))", "attempt": "\(attempt)/\(attempts)", "failure": "\(failure)",
                ])
            if attempt < attempts {
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                delay *= 2
            }
        }
        logger.error("mail not delivered", metadata: ["kind": "\(mail.kind.rawValue)", "app": "\(mail.app.prefix(64))"])
        return false
    }

    /// One attempt: `nil` on success, else a short reason without secrets.
    private func attemptOnce(_ mail: AccountMail) async throws -> String? {
        switch method {
        case .webhook(let url, let secret):
            let body = mail.json
            let now = Int64(clock.now().timeIntervalSince1970.rounded(.down))
            let request = HTTPRequest(
                method: "POST", url: url,
                headers: [
                    (name: "Content-Type", value: "application/json"),
                    (
                        name: "X-TokenTool-Signature",
                        value: try CustomFunctionProvider.signature(secret: secret, body: body, time: now, purpose: "mail")
                    ),
                ], body: body, timeout: timeout, maxResponseBytes: 16 * 1024)
            let response = try await transport.send(request)
            return (200..<300).contains(response.status) ? nil : "status \(response.status)"
        case .command(let argv):
            // One address, as an argument: never a list, an option or anything the program would parse.
            guard PasswordRule.isAddrSpec(mail.email) else { return "the recipient is not one plain address" }
            let message = mail.message(from: sender, date: clock.now())
            let status = try await Self.run(argv + [mail.email], input: Array(message.utf8), timeout: timeout)
            return status == 0 ? nil : "exit status \(status)"
        }
    }

    /// Runs `argv` with `input` on standard input, its output discarded; killed after `timeout`.
    static func run(_ argv: [String], input: [UInt8], timeout: TimeInterval) async throws -> Int32 {
        guard let program = argv.first else { throw TokenError(.invalidConfiguration, "the mail command is empty") }
        // A command that exits before reading its input must not kill the server with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = Array(argv.dropFirst())
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { p in
                // Returns at once (the process has ended) and drops the run-loop source through
                // which Foundation's Process retains itself: without it, each mail sent leaked a Process.
                p.waitUntilExit()
                continuation.resume(returning: p.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: TokenError(.invalidConfiguration, "cannot run the mail command \(program)"))
                return
            }
            DispatchQueue.global().async {
                try? stdin.fileHandleForWriting.write(contentsOf: Data(input))  // EPIPE when it exits first: its status tells
                try? stdin.fileHandleForWriting.close()
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { if process.isRunning { process.terminate() } }
        }
    }
}
