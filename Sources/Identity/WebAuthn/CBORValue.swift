/// One decoded CBOR data item (RFC 8949 §3) of the kinds WebAuthn uses: integers, byte and text
/// strings, arrays, maps with integer or text keys, `false`, `true` and `null`.
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: 0 to 2^64 − 1.
    case unsigned(UInt64)
    /// Major type 1: the value −1 − n (so `.negative(0)` is −1).
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3, valid UTF-8.
    case text(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5, in the order encoded; keys are unique.
    case map(CBORMap)
    /// Major type 7, simple values 20 and 21.
    case bool(Bool)
    /// Major type 7, simple value 22.
    case null

    /// The value of an integer that fits in `Int64`, else `nil`.
    public var intValue: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    public var bytesValue: [UInt8]? { if case .bytes(let b) = self { b } else { nil } }
    public var textValue: String? { if case .text(let s) = self { s } else { nil } }
    public var arrayValue: [CBORValue]? { if case .array(let a) = self { a } else { nil } }
    public var mapValue: CBORMap? { if case .map(let m) = self { m } else { nil } }
}

/// A map key: WebAuthn's maps (COSE keys, attestation objects) are keyed by integers or text.
public enum CBORKey: Sendable, Hashable {
    case int(Int64)
    case text(String)
}

/// A CBOR map: its entries in encoded order, keys unique.
public struct CBORMap: Sendable, Hashable {
    public let entries: [(key: CBORKey, value: CBORValue)]
    private let index: [CBORKey: Int]

    /// - Returns: `nil` when a key repeats.
    init?(_ entries: [(key: CBORKey, value: CBORValue)]) {
        var index: [CBORKey: Int] = [:]
        for (i, e) in entries.enumerated() {
            guard index.updateValue(i, forKey: e.key) == nil else { return nil }
        }
        self.entries = entries
        self.index = index
    }

    public subscript(key: CBORKey) -> CBORValue? { index[key].map { entries[$0].value } }
    public subscript(key: Int64) -> CBORValue? { self[.int(key)] }
    public subscript(key: String) -> CBORValue? { self[.text(key)] }
    public var count: Int { entries.count }

    public static func == (a: CBORMap, b: CBORMap) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
    public func hash(into hasher: inout Hasher) {
        for e in entries {
            hasher.combine(e.key)
            hasher.combine(e.value)
        }
    }
}
