#if canImport(FoundationEssentials)
    public import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    public import Foundation
#endif

/// The source of "now" for every time-dependent check: the verifier, JWKS caches, key rings
/// and token issuers. Inject ``fixed(_:)`` in tests and for `--now`.
public struct TokenClock: Sendable {
    /// Returns the current time.
    public var now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    /// The system's wall clock.
    public static let system = TokenClock { Date() }

    /// A clock that always returns `date`.
    public static func fixed(_ date: Date) -> TokenClock { TokenClock { date } }

    /// A clock that always returns the given Unix time in seconds.
    public static func fixed(unixSeconds: Int64) -> TokenClock {
        let date = Date(timeIntervalSince1970: TimeInterval(unixSeconds))
        return TokenClock { date }
    }
}

/// Formats Unix times as RFC 3339 UTC (`2026-11-22T03:12:00Z`) without a DateFormatter.
public enum UTCTime {
    /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SSZ` (fractions dropped).
    public static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 253_402_300_800 else { return String(seconds) }
        let s = Int64(seconds.rounded(.down))
        var days = s / 86_400
        var rem = s % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        // Civil-from-days (proleptic Gregorian), H. Hinnant's well-known algorithm.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        var y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        if m <= 2 { y += 1 }
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = y < 0 ? "-\(String(-y))" : (y < 1000 ? String(repeating: "0", count: 4 - String(y).count) + String(y) : String(y))
        return "\(year)-\(two(m))-\(two(d))T\(two(rem / 3600)):\(two(rem % 3600 / 60)):\(two(rem % 60))Z"
    }

    /// A short relative phrase: `"in 29m"`, `"3h ago"`, `"2d 4h ago"`.
    public static func relative(_ seconds: Double, now: Double) -> String {
        let delta = seconds - now
        let a = abs(delta)
        // Claims are attacker-chosen: 1e300 must not trap in Int(_:) below.
        guard a.isFinite, a < 1e15 else { return delta >= 0 ? "in the far future" : "in the distant past" }
        let text: String
        if a < 60 {
            text = "\(Int(a))s"
        } else if a < 3600 {
            text = "\(Int(a / 60))m"
        } else if a < 86_400 {
            let h = Int(a / 3600); let m = Int(a.truncatingRemainder(dividingBy: 3600) / 60); text = m == 0 ? "\(h)h" : "\(h)h \(m)m"
        } else {
            let d = Int(a / 86_400); let h = Int(a.truncatingRemainder(dividingBy: 86_400) / 3600); text = h == 0 ? "\(d)d" : "\(d)d \(h)h"
        }
        return delta >= 0 ? "in \(text)" : "\(text) ago"
    }
}
