/// Base16 (RFC 4648 §8): the one hex encoder and decoder.
///
/// ```swift
/// Hex.encode([0x0f, 0xa0])                    // "0fa0"
/// Hex.encode([0x0f, 0xa0], uppercase: true)   // "0FA0"
/// Hex.decode("0FA0")                          // [0x0f, 0xa0]
/// ```
public enum Hex {
    /// The lower-case digits, by value.
    public static let lowerDigits: [UInt8] = Array("0123456789abcdef".utf8)
    /// The upper-case digits, by value.
    public static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Two digits a byte, lower-case unless `uppercase`.
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upperDigits : lowerDigits
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits (either case); `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            guard let v = value(of: c) else { return nil }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return high == nil ? out : nil
    }

    /// The value of one hex digit (either case); `nil` for any other byte.
    public static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
