import CLIHarness
import Foundation
import Testing

/// `tokentool decode` on the RFC 7515 A.1 example: expected values are the RFC's.
@Suite struct DecodeTests {
    @Test func jsonShapeMatchesTheRFCExample() throws {
        let r = try CLI.tokentool(["decode", "--json", RFC7515A1.token])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.isEmpty)
        let o = try #require(r.json)
        #expect(Set(o.keys) == ["header", "payload", "signature", "verified"])
        let header = try #require(o["header"] as? [String: Any])
        #expect(header["typ"] as? String == "JWT")
        #expect(header["alg"] as? String == "HS256")
        let payload = try #require(o["payload"] as? [String: Any])
        #expect(payload["iss"] as? String == "joe")
        #expect((payload["exp"] as? NSNumber)?.int64Value == RFC7515A1.exp)
        #expect(payload["http://example.com/is_root"] as? Bool == true)
        #expect(o["signature"] as? String == RFC7515A1.signature)
        #expect(o["verified"] as? Bool == false)
        // Exactly one JSON object, one line.
        #expect(r.stdout.split(separator: "\n").count == 1)
    }

    @Test func humanOutputSaysNotVerifiedAndShowsUTCDates() throws {
        // Three hours after exp; the UTC date comes from date(1), not from us.
        let s = try Scratch()
        let expDate = try s.sh("date -u -d @\(RFC7515A1.exp) +%Y-%m-%dT%H:%M:%SZ").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(expDate == "2011-03-22T18:43:00Z")
        let r = try s.tokentool("decode", "--now", String(RFC7515A1.exp + 3 * 3600), RFC7515A1.token)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("NOT VERIFIED"))
        #expect(r.stdout.contains("\"iss\": \"joe\""))  // pretty-printed payload
        #expect(r.stdout.contains("\"alg\": \"HS256\""))  // pretty-printed header
        #expect(r.stdout.contains("exp  \(expDate)  expired 3h ago"))
        let soon = try s.tokentool("decode", "--now", String(RFC7515A1.exp - 29 * 60), RFC7515A1.token)
        #expect(soon.stdout.contains("expires in 29m"), "\(soon)")
    }

    /// The unsecured JWT of RFC 7519 §6.1: decode shows it (people debug such tokens) with a
    /// warning that every verifier refuses it; verify refuses it.
    @Test func showsAnUnsecuredTokenWithAWarning() throws {
        let unsecured = "eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
        let human = try CLI.tokentool(["decode", unsecured])
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.contains("\"alg\": \"none\""))
        #expect(human.stdout.contains("WARNING: every verifier refuses this token: unsupported_algorithm"))
        let json = try CLI.tokentool(["decode", "--json", unsecured])
        #expect(json.status == 0)
        let o = try #require(json.json)
        #expect((o["refused"] as? [String: Any])?["code"] as? String == "unsupported_algorithm")
        #expect((o["payload"] as? [String: Any])?["iss"] as? String == "joe")
        let s = try Scratch()
        try s.write("secret", String(repeating: "s", count: 32))
        let verify = try s.tokentool("verify", "--secret-file", "secret", "--json", unsecured)
        #expect(verify.status == 1)
        #expect(verify.errorCode == "unsupported_algorithm")
    }

    @Test func readsStandardInput() throws {
        let r = try CLI.tokentool(["decode", "--json", "-"], stdin: RFC7515A1.token + "\n")
        #expect(r.status == 0, "\(r)")
        #expect((r.json?["payload"] as? [String: Any])?["iss"] as? String == "joe")
        let empty = try CLI.tokentool(["decode", "--json", "-"], stdin: "")
        #expect(empty.status == 1)
        #expect(empty.errorCode == "malformed")
    }

    @Test func nonJSONPayloadIsShownNotRejected() throws {
        let r = try CLI.tokentool(["decode", "--json", RFC7520ES512.token])
        #expect(r.status == 0, "\(r)")
        #expect(r.json?["payload_b64"] as? String == RFC7520ES512.payloadB64)
        let human = try CLI.tokentool(["decode", RFC7520ES512.token])
        #expect(human.stdout.contains(RFC7520ES512.payloadText))
    }

    @Test func usageErrorsExitTwo() throws {
        #expect(try CLI.tokentool(["decode"]).status == 2)
        #expect(try CLI.tokentool(["decode", "--bogus", RFC7515A1.token]).status == 2)
        #expect(try CLI.tokentool(["frobnicate"]).status == 2)
        // --json promises one JSON object on stdout even for a usage error.
        let usage = try CLI.tokentool(["verify", "--json", "--leeway"])
        #expect(usage.status == 2)
        #expect(usage.errorCode == "invalid_input", "\(usage)")
        #expect(usage.stdout.split(separator: "\n").count == 1)
        let help = try CLI.tokentool(["decode", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("NOT verified"))
    }
}

/// Malformed tokens (docs/errors.md, `malformed`), through both decode and verify: exit 1, code
/// `malformed`, a one-line `error: malformed: …` on stderr, nothing on stdout.
@Suite struct MalformedTokenTests {
    static let h = b64url(#"{"alg":"HS256","typ":"JWT"}"#)
    static let p = b64url(#"{"sub":"42"}"#)
    static let sig = b64url("0123456789abcdef0123456789abcdef")

    static let cases: [(String, String)] = [
        ("two segments", "\(h).\(p)"),
        ("four segments", "\(h).\(p).\(sig).\(sig)"),
        ("five segments (JWE)", "\(h).\(p).\(sig).\(sig).\(sig)"),
        ("one segment", h),
        ("padding in header", b64url(#"{"alg":"HS256"}"#) + "=.\(p).\(sig)"),
        ("+ in header (base64, not base64url)", "eyJhbGciOiJIUzI1NiJ9+.\(p).\(sig)"),
        ("space inside", "\(h).\(p) .\(sig)"),
        ("non-zero trailing bits", "eyJhbGciOiJIUzI1NiJ9.\(p).AB"),
        ("duplicate header names", b64url(#"{"alg":"HS256","alg":"HS512"}"#) + ".\(p).\(sig)"),
        ("header not JSON", b64url("alg=HS256") + ".\(p).\(sig)"),
        ("header is an array", b64url(#"["HS256"]"#) + ".\(p).\(sig)"),
        ("empty signature", "\(h).\(p)."),
        ("oversized token", "\(h).\(b64url(String(repeating: "x", count: 70_000))).\(sig)"),
        ("Bearer prefix", "Bearer \(h).\(p).\(sig)"),
        ("leading space", " \(h).\(p).\(sig)"),
        ("trailing newline", "\(h).\(p).\(sig)\n"),
        ("quoted", "\"\(h).\(p).\(sig)\""),
    ]

    /// decode shows tokens that only the header rules refuse (an empty signature, alg none) with a
    /// warning (see `showsAnUnsecuredTokenWithAWarning`); everything else it cannot read at all.
    static let unreadable = cases.filter { $0.0 != "empty signature" }

    @Test(arguments: unreadable)
    func decodeRefuses(name: String, token: String) throws {
        let human = try CLI.tokentool(["decode", token])
        #expect(human.status == 1, "\(name): \(human)")
        #expect(human.stdout.isEmpty)
        #expect(human.stderr.hasPrefix("error: malformed: "), "\(name): \(human.stderr)")
        #expect(human.stderr.split(separator: "\n").count == 1)
        let json = try CLI.tokentool(["decode", "--json", token])
        #expect(json.status == 1)
        #expect(json.errorCode == "malformed", "\(name): \(json)")
        #expect(json.json?["valid"] as? Bool == false)
        #expect(json.stderr.isEmpty)
    }

    @Test(arguments: cases)
    func verifyRefuses(name: String, token: String) throws {
        let s = try Scratch()
        try s.write("secret", "0123456789abcdef0123456789abcdef")
        let r = try s.tokentool("verify", "--json", "--secret-file", "secret", token)
        #expect(r.status == 1, "\(name): \(r)")
        #expect(r.errorCode == "malformed", "\(name): \(r)")
    }

    @Test func messagesSayWhatWasWrong() throws {
        let five = try CLI.tokentool(["decode", "\(Self.h).\(Self.p).\(Self.sig).\(Self.sig).\(Self.sig)"])
        #expect(five.stderr.contains("invalid number of segments"))
        #expect(five.stderr.contains("found 5"))
        #expect(five.stderr.contains("JWE"))
        let bearer = try CLI.tokentool(["decode", "Bearer \(Self.h).\(Self.p).\(Self.sig)"])
        #expect(bearer.stderr.contains("Bearer"))
        #expect(bearer.stderr.contains("without the Authorization scheme"))
        let space = try CLI.tokentool(["decode", " \(Self.h).\(Self.p).\(Self.sig)"])
        #expect(space.stderr.contains("white space"))
        // The message never echoes the token.
        #expect(!bearer.stderr.contains(Self.p))
    }

    @Test func algNoneIsUnsupported() throws {
        let none = b64url(#"{"alg":"none"}"#) + ".\(Self.p).\(Self.sig)"
        let decoded = try CLI.tokentool(["decode", "--json", none])
        #expect(decoded.status == 0)
        #expect((decoded.json?["refused"] as? [String: Any])?["code"] as? String == "unsupported_algorithm")
        let empty = try CLI.tokentool(["decode", "--json", "\(Self.h).\(Self.p)."])
        #expect((empty.json?["refused"] as? [String: Any])?["code"] as? String == "malformed")
        let s = try Scratch()
        try s.write("secret", "0123456789abcdef0123456789abcdef")
        let r = try s.tokentool("verify", "--json", "--secret-file", "secret", none)
        #expect(r.status == 1)
        #expect(r.errorCode == "unsupported_algorithm")
    }
}
