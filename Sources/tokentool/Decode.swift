import ArgumentParser
#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import JOSE

/// `tokentool decode`: shows what a token says, without verifying anything.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Show a JWT's header and payload. Verifies nothing.",
        discussion: """
            The output is NOT verified: anyone can write any header and payload. Use `tokentool verify` \
            to check the signature and the claims. Times (exp, nbf, iat) are shown as UTC dates with \
            how long ago or how soon they are. The token is still checked for well-formedness \
            (3 segments, strict base64url, JSON without duplicate names, size limits).
            --json prints {"header":…,"payload":…,"signature":"<base64url>","verified":false}.
            Exit codes: 0 decoded, 1 malformed token, 2 usage error.
            """)

    /// `{"header":…,"payload":…,"signature":"<base64url>","verified":false}`.
    @OptionGroup var output: JSONOption

    /// `--now`: the time of the "expires in" phrases.
    @OptionGroup var clock: ClockOption

    @Argument(help: ArgumentHelp("The compact JWT, or - to read it from standard input.", valueName: "jwt"))
    var token: String

    func run() throws {
        try reportingErrors(json: output.json) {
            let text = try readTokenArgument(token)
            let decoded = try UnverifiedToken(text)
            if output.json {
                var out: JSONObject = ["header": .object(decoded.headerMembers)]
                if let claims = decoded.claims {
                    out["payload"] = .object(claims.object)
                } else {
                    // Not a JSON object (a JWS over arbitrary bytes): give the bytes back as received.
                    out["payload"] = .null
                    out["payload_b64"] = .string(Base64URL.encode(decoded.payload))
                }
                out["signature"] = .string(Base64URL.encode(decoded.signature))
                out["verified"] = false
                if let refusal = decoded.refusal {
                    out["refused"] = .object(["code": .string(refusal.code.rawValue), "message": .string(refusal.message)])
                }
                printJSON(.object(out))
            } else {
                printHuman(decoded, now: clock.clock.now().timeIntervalSince1970)
            }
        }
    }

    private func printHuman(_ t: UnverifiedToken, now: Double) {
        var lines: [String] = []
        lines.append("NOT VERIFIED: decode checks no signature and no claim; use `tokentool verify` for that.")
        lines.append("")
        lines.append("Header:")
        lines.append(JSONValue.object(t.headerMembers).prettyString())
        if let refusal = t.refusal {
            lines.append("WARNING: every verifier refuses this token: \(refusal.code.rawValue): \(refusal.message)")
        }
        lines.append("")
        if let claims = t.claims {
            lines.append("Payload:")
            lines.append(JSONValue.object(claims.object).prettyString())
            let times = ["exp", "nbf", "iat"].compactMap { name in claims[name].map { (name, $0) } }
            if !times.isEmpty {
                lines.append("")
                lines.append("Times (UTC, now \(UTCTime.format(now))):")
                for (name, value) in times { lines.append("  \(name)  \(describeTime(claim: name, value: value, now: now))") }
            }
        } else if let text = String(validating: t.payload, as: UTF8.self) {
            lines.append("Payload (\(t.payload.count) bytes, not a JSON object):")
            lines.append(text)
        } else {
            lines.append("Payload (\(t.payload.count) bytes, not text), base64url:")
            lines.append(Base64URL.encode(t.payload))
        }
        lines.append("")
        let alg = t.header?.algorithm.rawValue ?? t.headerMembers["alg"]?.stringValue.map { "alg \"\($0.prefix(32))\"" } ?? "no alg"
        lines.append("Signature: \(t.signature.count) bytes (\(alg)), not checked")
        print(lines.joined(separator: "\n"))
    }
}
