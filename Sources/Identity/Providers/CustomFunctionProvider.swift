public import Foundation
public import JOSE

/// The App Services `custom-function` login: the app's own HTTP function decides who signs in.
///
/// The client's login body (without `provider` and `options`) is POSTed as JSON to the
/// configured URL with `X-TokenTool-Signature: t=<unix seconds>,p=login,v1=<hex HMAC-SHA256(secret,
/// "<t>.login.<body>")>`, so the function can check that the call is ours, fresh, and a login (the
/// purpose is signed: a login body the client shaped like a `reset/call` is still a login). Its answer:
/// - 2xx `{"id": "…", "name"?: "…", "email"?: "…"}`: the identity `(custom-function, id)`;
/// - 4xx: `function_refused`, with the function's `{"error"}` text (bounded, printable);
/// - anything else (unreachable, timeout, 5xx, a body over the limit or not that object): `function_failed`.
///
/// ```swift
/// let function = try CustomFunctionProvider(
///     configuration: .init(url: "https://app.example.com/auth", secret: secretBytes), transport: transport)
/// let identity = try await function.verify(payload: ["username": "ada", "pin": "1234"])
/// ```
public struct CustomFunctionProvider: Sendable {
    public struct Configuration: Sendable {
        /// The function's URL: https, or http on loopback.
        public var url: String
        /// The HMAC key of the signature header (at least 32 bytes).
        public var secret: [UInt8]
        /// The provider name of the identities made (the config's key).
        public var providerName = "custom-function"
        /// The whole call (connect, send, the full answer).
        public var timeout: TimeInterval = 10
        /// The largest answer accepted.
        public var maxResponseBytes = 64 * 1024
        /// The largest request body sent.
        public var maxRequestBytes = 64 * 1024
        public var clock: TokenClock = .system

        public init(url: String, secret: [UInt8]) {
            self.url = url
            self.secret = secret
        }
    }

    /// The name of the signature header.
    public static let signatureHeader = "X-TokenTool-Signature"

    public let configuration: Configuration
    private let transport: any HTTPTransport

    /// - Throws: `invalid_configuration` for a URL that is not https (or http on loopback), or a
    ///   secret under 32 bytes.
    public init(configuration: Configuration, transport: any HTTPTransport) throws {
        try ProviderURL.validate(configuration.url, what: "custom function URL")
        guard configuration.secret.count >= 32 else {
            throw TokenError(.invalidConfiguration, "the custom function secret must be at least 32 bytes, got \(configuration.secret.count)")
        }
        self.configuration = configuration
        self.transport = transport
    }

    /// `t=<time>,p=<purpose>,v1=<hex HMAC-SHA256(secret, "<time>.<purpose>.<body>")>`: the header
    /// value for `body` sent at `time` for `purpose` (`login`, `confirm`, `reset`, `mail`): the
    /// purpose is inside the signed bytes, so a body signed for one purpose is no call of another.
    public static func signature(secret: [UInt8], body: [UInt8], time: Int64, purpose: String) throws -> String {
        let mac = try HMAC.sha256(key: secret, data: Array("\(time).\(purpose).".utf8) + body)
        return "t=\(time),p=\(purpose),v1=" + Hex.encode(mac)
    }

    /// Calls the function with the login body and makes the identity from its answer.
    /// - Parameter payload: the login body as the client sent it; `provider` and `options` are
    ///   removed before it is sent.
    /// - Throws: `function_refused`, `function_failed` (also for an answer field of the wrong type
    ///   or size), `invalid_input` (a body over the limit).
    public func verify(payload: JSONObject) async throws -> Identity {
        var body = JSONObject()
        for (key, value) in payload where key != "provider" && key != "options" { body[key] = value }
        let answer = try await call(body, purpose: "login")
        guard let id = answer["id"]?.stringValue, !id.isEmpty else {
            throw TokenError(.customFunctionFailed, "the custom function's answer has no string \"id\"")
        }
        var values: [IdentityField: JSONValue] = [.subject: .string(id)]
        values[.name] = answer["name"]
        values[.email] = answer["email"]
        do {
            return try Identity.normalized(
                provider: configuration.providerName, values: values,
                claimNames: [.subject: "id"], rawClaims: answer)
        } catch let e as TokenError {
            throw TokenError(.customFunctionFailed, "the custom function's answer is unusable: \(e.message)")
        }
    }

    /// POSTs `body` to the function, signed for `purpose`, within the timeout, and returns its 2xx
    /// answer's JSON object (the login above, `login`; the accounts' `confirm/call` and `reset/call`,
    /// `confirm` and `reset`).
    /// - Throws: `function_refused` for a 4xx (with the function's `{"error"}` text, bounded and
    ///   printable); `function_failed` when it is unreachable, times out, answers otherwise than
    ///   2xx or 4xx, or answers 2xx with anything but a JSON object within the size limit;
    ///   `invalid_input` for a body over the limit.
    public func call(_ body: JSONObject, purpose: String) async throws -> JSONObject {
        let bytes = JSONValue.object(body).jsonBytes
        guard bytes.count <= configuration.maxRequestBytes else {
            throw TokenError(.invalidInput, "the custom function payload is over \(configuration.maxRequestBytes) bytes")
        }
        let time = Int64(configuration.clock.now().timeIntervalSince1970.rounded(.down))
        var request = HTTPRequest(
            method: "POST", url: configuration.url,
            headers: [
                ("Content-Type", "application/json"), ("Accept", "application/json"),
                (Self.signatureHeader, try Self.signature(secret: configuration.secret, body: bytes, time: time, purpose: purpose)),
            ],
            body: bytes, timeout: configuration.timeout, maxResponseBytes: configuration.maxResponseBytes)
        // The message goes to the client: the function's address (often an internal one) is the
        // server's configuration, not the client's business. The transport keeps it in `detail`.
        request.name = "the custom function"
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let e as TokenError {
            var failed = TokenError(.customFunctionFailed, e.message)
            failed.detail = e.detail
            throw failed
        }
        let secrets = [String(decoding: configuration.secret, as: UTF8.self)]
        switch response.status {
        case 200..<300:
            do { return try ProviderHTTP.jsonObject(response, from: "the custom function") } catch {
                throw TokenError(.customFunctionFailed, "the custom function answered HTTP \(response.status) without a JSON object")
            }
        case 400..<500:
            let said = (try? ProviderHTTP.jsonObject(response, from: "the custom function"))?["error"]?.stringValue
            let text = said.map { ProviderHTTP.sanitized($0, redacting: secrets, limit: 200) } ?? ""
            throw TokenError(.customFunctionRefused, text.isEmpty ? "the custom function refused" : text)
        default:
            throw TokenError(.customFunctionFailed, "the custom function answered HTTP \(response.status)")
        }
    }
}
