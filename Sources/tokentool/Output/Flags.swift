import JOSE

/// Parses an `--alg` value. A bad value is the caller's mistake (exit 2), not a rejected token.
func parseAlgorithmFlag(_ name: String) throws -> JWSAlgorithm {
    do { return try JWSAlgorithm.parse(name) } catch let e as TokenError { throw TokenError(.invalidInput, "--alg: \(e.message)") }
}

/// Parses a duration flag with ``JOSE/DurationText`` (a bare number is seconds): `90`, `90s`,
/// `30m`, `1h`, `2d`, `1w`, or a sum such as `1h30m`.
/// - Throws: `invalid_input` naming the flag.
func parseDuration(_ text: String, flag: String) throws -> Int64 {
    guard let seconds = DurationText.seconds(text, bareSeconds: true) else {
        throw TokenError(.invalidInput, "\(flag) \"\(text.prefix(32))\" is not a duration; expected e.g. 90s, 30m, 1h, 2d or 1h30m")
    }
    return seconds
}

/// The clock for `--now` (Unix seconds), else the system clock.
func tokenClock(now: Int64?) -> TokenClock {
    now.map { TokenClock.fixed(unixSeconds: $0) } ?? .system
}
