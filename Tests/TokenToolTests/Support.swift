import CLIHarness
import Foundation
import Testing

/// A fresh directory per test, removed afterwards.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
        return path(name)
    }

    func read(_ name: String) throws -> String {
        String(decoding: try readAll(url.appendingPathComponent(name)), as: UTF8.self)
    }

    func tokentool(_ args: String..., stdin: String? = nil) throws -> CLI.Result {
        try CLI.tokentool(args, stdin: stdin, in: url)
    }

    func tokentool(args: [String], stdin: String? = nil) throws -> CLI.Result {
        try CLI.tokentool(args, stdin: stdin, in: url)
    }

    /// Runs a shell command that must succeed (openssl, python3), returning its stdout.
    @discardableResult
    func sh(_ script: String, stdin: String? = nil) throws -> String {
        let r = try CLI.sh(script, in: url, stdin: stdin)
        guard r.status == 0 else { throw ShellFailure(script: script, result: r) }
        return r.stdout
    }

    struct ShellFailure: Error, CustomStringConvertible {
        let script: String
        let result: CLI.Result
        var description: String { "`\(script)` failed: \(result)" }
    }
}

/// RFC 7515 Appendix A.1: an HS256 JWS with its key. Expected values are the RFC's.
enum RFC7515A1 {
    static let header = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
    static let payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let signature = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let token = "\(header).\(payload).\(signature)"
    static let jwk = #"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#
    /// `exp` of the example: 1300819380 = 2011-03-22T18:43:00Z.
    static let exp: Int64 = 1_300_819_380
}

/// RFC 7520 §4.3: ES512 over a non-JSON payload, with the P-521 key of §3.2 (public half here).
enum RFC7520ES512 {
    static let publicJWK =
        #"{"kty":"EC","kid":"bilbo.baggins@hobbiton.example","use":"sig","crv":"P-521","x":"AHKZLLOsCOzz5cY97ewNUajB957y-C-U88c3v13nmGZx6sYl_oJXu9A5RkTKqjqvjyekWF-7ytDyRXYgCF5cj0Kt","y":"AdymlHvOiLxXkEhayXQnNCvDX4h9htZaCJN34kfmC6pV5OhQHiraVySsUdaQkAgDPrwQrJmbnX9cwlGfP-HqHZR1"}"#
    static let payloadB64 =
        "SXTigJlzIGEgZGFuZ2Vyb3VzIGJ1c2luZXNzLCBGcm9kbywgZ29pbmcgb3V0IHlvdXIgZG9vci4gWW91IHN0ZXAgb250byB0aGUgcm9hZCwgYW5kIGlmIHlvdSBkb24ndCBrZWVwIHlvdXIgZmVldCwgdGhlcmXigJlzIG5vIGtub3dpbmcgd2hlcmUgeW91IG1pZ2h0IGJlIHN3ZXB0IG9mZiB0by4"
    static let token =
        "eyJhbGciOiJFUzUxMiIsImtpZCI6ImJpbGJvLmJhZ2dpbnNAaG9iYml0b24uZXhhbXBsZSJ9.\(payloadB64).AE_R_YZCChjn4791jSQCrdPZCNYqHXCTZH0-JZGYNlaAjP2kqaluUIIUnC9qvbu9Plon7KRTzoNEuT4Va2cmL1eJAQy3mtPBu_u_sDDyYjnAMDxXPn7XrT0lw-kvAD890jl8e2puQens_IEKBpHABlsbEPX6sFY8OcGDqoRuBomu9xQ2"
    static let payloadText =
        "It’s a dangerous business, Frodo, going out your door. You step onto the road, and if you don't keep your feet, there’s no knowing where you might be swept off to."
}

/// base64url without padding, written here from RFC 4648 §5 (not JOSE's encoder).
func b64url(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
        of: "=", with: "")
}
func b64url(_ text: String) -> String { b64url(Data(text.utf8)) }
