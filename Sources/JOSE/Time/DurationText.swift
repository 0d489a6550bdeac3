/// Durations as people write them in flags and configuration: `90s`, `30m`, `12h`, `60d`, `1w`,
/// or a sum such as `1h30m`. The one parser of the CLI's flags, the server's config and rates.
///
/// ```swift
/// DurationText.seconds("1h30m")                  // 5400
/// DurationText.seconds("45", bareSeconds: true)  // 45
/// DurationText.seconds("45")                     // nil: a unit is required
/// ```
public enum DurationText {
    /// Seconds per unit letter.
    public static let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]

    /// The seconds `text` names, or `nil` when it is not a duration: one or more parts of ASCII
    /// digits (at most 9) and a unit letter of `allowed`, at most 32 characters in all. With
    /// `bareSeconds`, a plain number (ASCII digits) is a number of seconds.
    public static func seconds(_ text: some StringProtocol, bareSeconds: Bool = false, units allowed: String = "smhdw") -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 32 else { return nil }
        if bareSeconds, text.allSatisfy({ $0.isASCII && $0.isNumber }) { return Int64(text) }
        var total: Int64 = 0
        var digits = ""
        for c in text {
            if c.isASCII && c.isNumber { digits.append(c); continue }
            guard allowed.contains(c), let unit = units[c], !digits.isEmpty, digits.count <= 9, let n = Int64(digits) else { return nil }
            total += n * unit
            digits = ""
        }
        return digits.isEmpty ? total : nil
    }
}
