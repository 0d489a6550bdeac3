import Foundation
import JOSE

/// The `X-TokenTool-Signature` header of the requests the server makes to an app's own URLs
/// (the custom-function provider, account mail webhooks, `confirm/call` and `reset/call`):
/// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The receiver recomputes the
/// MAC over the exact body bytes and refuses a stale `t`, which stops replays.
///
/// ```swift
/// let header = try RequestSignature.header(secret: secret, body: body, at: 1_900_000_000)
/// // "t=1900000000,v1=…64 hex digits…"
/// let ok = RequestSignature.verify(header, secret: secret, body: body, now: 1_900_000_010)
/// ```
public enum RequestSignature {
    /// The header's name.
    public static let headerName = "X-TokenTool-Signature"

    /// The header value for `body` sent at `time`.
    /// - Throws: `internal_error` when OpenSSL fails.
    public static func header(secret: [UInt8], body: [UInt8], at time: Int64) throws -> String {
        "t=\(time),v1=\(hex(try mac(secret: secret, body: body, time: time)))"
    }

    /// `true` when `header` signs `body` under `secret` and its `t` is within `tolerance`
    /// seconds of `now`; the MAC is compared in constant time.
    public static func verify(_ header: String, secret: [UInt8], body: [UInt8], now: Int64, tolerance: Int64 = 300) -> Bool {
        guard header.utf8.count <= 256 else { return false }
        var time: Int64?, given: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { time = Int64(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { given = String(part.dropFirst(3)) }
        }
        guard let time, let given, abs(now - time) <= tolerance,
              let expected = try? mac(secret: secret, body: body, time: time) else { return false }
        return ConstantTime.equals(Array(given.utf8), Array(hex(expected).utf8))
    }

    private static func mac(secret: [UInt8], body: [UInt8], time: Int64) throws -> [UInt8] {
        try HMAC.sha256(key: secret, data: Array("\(time).".utf8) + body)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out += [digits[Int(b >> 4)], digits[Int(b & 0x0f)]] }
        return String(decoding: out, as: UTF8.self)
    }
}
