import ArgumentParser
import JOSE

// The flags several commands share, declared once (same name, help and parsing everywhere).

/// `--json`: the result as JSON on standard output, failures included (`{"valid":false,"error":…}`
/// where the command judges a token).
struct JSONOption: ParsableArguments {
    @Flag(name: .customLong("json"), help: "Print the result as JSON on standard output (docs/cli.md shows each command's).")
    var json = false
}

/// `--now`: a fixed Unix time instead of the system clock (for checks, issuing and messages).
struct ClockOption: ParsableArguments {
    @Option(name: .customLong("now"), help: ArgumentHelp("Use this Unix time as now instead of the system clock.", valueName: "UNIX_SECONDS"))
    var now: Int64?

    /// The clock these flags describe.
    var clock: TokenClock { tokenClock(now: now) }
}

/// `--leeway`: clock skew tolerated on `exp`, `nbf` and `iat`.
struct LeewayOption: ParsableArguments {
    @Option(
        name: .customLong("leeway"), help: ArgumentHelp("Clock skew tolerated for exp, nbf and iat: seconds, or 30s, 2m, …", valueName: "SECONDS"))
    var leeway: String = "0"

    /// The leeway in seconds. - Throws: `invalid_input` for a value that is no duration.
    func seconds() throws -> Int64 { try Self.seconds(leeway) }

    /// A `--leeway` value in seconds (the fast path of `verify` reads the flag without ArgumentParser).
    static func seconds(_ text: String) throws -> Int64 { try parseDuration(text, flag: "--leeway") }
}

/// `--key` and `--secret-file`: key files, read by ``JOSE/KeyFile``.
struct KeyOptions: ParsableArguments {
    @Option(
        name: .customLong("key"),
        help: ArgumentHelp("A key file: PEM (SPKI, X.509 certificate, PKCS#8 or traditional private key), DER, JWK or JWKS.", valueName: "FILE"))
    var keys: [String] = []

    @Option(
        name: .customLong("secret-file"),
        help: ArgumentHelp("A file holding an HMAC secret (its bytes; one trailing newline is dropped).", valueName: "FILE"))
    var secretFile: String?
}
