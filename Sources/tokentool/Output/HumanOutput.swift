import JOSE

/// One line about a NumericDate claim: `2026-11-22T03:12:00Z  expires in 29m`.
func describeTime(claim: String, value: JSONValue, now: Double) -> String {
    guard let seconds = value.numberValue else { return "\(value.jsonString)  (not a NumericDate: a \(value.typeName))" }
    let date = UTCTime.format(seconds)
    let rel = UTCTime.relative(seconds, now: now)
    switch claim {
    case "exp": return "\(date)  " + (seconds <= now ? "expired \(rel)" : "expires \(rel)")
    case "nbf": return "\(date)  " + (seconds <= now ? "valid since \(rel)" : "not valid yet: valid \(rel)")
    case "iat": return "\(date)  " + (seconds <= now ? "issued \(rel)" : "issued in the future (\(rel))")
    default: return "\(date)  \(rel)"
    }
}

/// A claim value on one line: strings bare, everything else as compact JSON.
func describeValue(_ value: JSONValue) -> String {
    if let s = value.stringValue { return s }
    if let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil }) { return a.compactMap(\.stringValue).joined(separator: ", ") }
    return value.jsonString
}
