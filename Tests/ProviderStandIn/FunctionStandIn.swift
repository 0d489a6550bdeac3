import Foundation
import JOSE

/// A stand-in for an app's custom-function endpoint (docs/identity.md, `custom-function`) on 127.0.0.1.
///
/// It checks `X-TokenTool-Signature` as the app's function would (HMAC-SHA256 under the shared
/// secret over `"<t>.<body>"`, `t` within 5 minutes) and answers by the payload's `"user"`:
/// - `"refuse"`: 401 `{"error":"no such user"}`; `"bad-request"`: 400 without a body;
/// - `"crash"`: 500; `"stall"`: never answers; `"huge"`: a 100 KiB answer; `"not-json"`: text;
/// - `"no-id"`: `{"name":"x"}`; `"numeric-name"`: an `"name"` that is a number;
/// - anything else: 200 `{"id": user, "name": payload name?, "email": payload email?}`.
/// A `confirm/call` or `reset/call` payload (one with a `"type"`) is answered by its email's
/// local part up to a `+`: `success`, `pending`, `fail` (`{"status": …}`), `refuse` (401),
/// `crash` (500), `stall`, `huge`, `not-json`, `no-status` (`{"status":"maybe"}`).
/// A bad signature is 401 `{"error":"bad signature"}`.
public final class FunctionStandIn: @unchecked Sendable {
    public let secret: [UInt8]
    private var server: HTTPServer?
    private let lock = NSLock()
    private var requests: [StandInRequest] = []

    /// Starts the function on 127.0.0.1 (`port` 0: a free port) with `secret`, or a random 32-byte one.
    public static func start(port: Int = 0, secret: [UInt8]? = nil) async throws -> FunctionStandIn {
        let function = FunctionStandIn(secret: try secret ?? SecureRandom.bytes(32))
        function.server = try await HTTPServer(port: port) { [function] request in function.respond(request) }
        return function
    }

    private init(secret: [UInt8]) { self.secret = secret }

    public func shutdown() async throws { try await server?.shutdown() }

    public var port: Int { server?.port ?? 0 }
    /// The function's URL.
    public var url: String { "http://127.0.0.1:\(port)/auth" }
    /// Every request received, oldest first.
    public var received: [StandInRequest] { lock.withLock { requests } }

    /// `true` when `header` is a valid signature of `body` for `purpose` under the secret, made
    /// within 300 s of now.
    public func signatureIsValid(_ header: String?, body: [UInt8], purpose: String) -> Bool {
        signedPurpose(header, body: body) == purpose
    }

    /// The purpose `header` validly signs `body` for (its `p`), or `nil` for a bad or stale signature.
    public func signedPurpose(_ header: String?, body: [UInt8]) -> String? {
        guard let header else { return nil }
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let kv = part.split(separator: "=", maxSplits: 1)
            if kv.count == 2 { fields[String(kv[0])] = String(kv[1]) }
        }
        guard let t = fields["t"], let time = Int64(t), let p = fields["p"], let v1 = fields["v1"],
            abs(Int64(Date().timeIntervalSince1970) - time) <= 300,
            let mac = try? HMAC.sha256(key: secret, data: Array("\(t).\(p).".utf8) + body)
        else { return nil }
        return ConstantTime.equals(Array(v1.utf8), Array(mac.map { String(format: "%02x", $0) }.joined().utf8)) ? p : nil
    }

    func respond(_ request: StandInRequest) -> StandInResponse? {
        lock.withLock { requests.append(request) }
        guard let purpose = signedPurpose(request.header("X-TokenTool-Signature"), body: request.body) else {
            return .json(#"{"error":"bad signature"}"#, status: 401)
        }
        let payload = (try? JSONValue(parsing: String(decoding: request.body, as: UTF8.self)))?.objectValue ?? JSONObject()
        // What the call is for is the signed purpose, never the body's own words.
        if purpose == "confirm" || purpose == "reset" { return Self.callAnswer(payload) }
        let user = payload["user"]?.stringValue ?? ""
        switch user {
        case "refuse": return .json(#"{"error":"no such user"}"#, status: 401)
        case "bad-request": return StandInResponse(status: 400)
        case "crash": return .json(#"{"error":"boom"}"#, status: 500)
        case "stall": return nil
        case "huge": return .json(#"{"id":"x","name":""# + String(repeating: "a", count: 100 * 1024) + #""}"#)
        case "not-json": return StandInResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("ok".utf8))
        case "no-id": return .json(#"{"name":"x"}"#)
        case "numeric-name": return .json(#"{"id":"x","name":42}"#)
        default:
            var answer: JSONObject = ["id": .string(user)]
            answer["name"] = payload["name"]
            answer["email"] = payload["email"]
            return .json(JSONValue.object(answer).jsonString)
        }
    }

    static func callAnswer(_ payload: JSONObject) -> StandInResponse? {
        let email = payload["email"]?.stringValue ?? ""
        let local = email.prefix { $0 != "@" && $0 != "+" }.lowercased()
        switch local {
        case "success", "pending", "fail": return .json(#"{"status":"\#(local)"}"#)
        case "refuse": return .json(#"{"error":"no such user"}"#, status: 401)
        case "crash": return .json(#"{"error":"boom"}"#, status: 500)
        case "stall": return nil
        case "huge": return .json(#"{"status":"success","pad":""# + String(repeating: "a", count: 100 * 1024) + #""}"#)
        case "not-json": return StandInResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array("success".utf8))
        default: return .json(#"{"status":"maybe"}"#)
        }
    }
}
