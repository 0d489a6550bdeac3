/// Writes JSONValue as compact (or indented) UTF-8 JSON.
struct JSONWriter {
    var bytes: [UInt8] = []
    let pretty: Bool

    init(pretty: Bool = false, capacity: Int = 256) {
        self.pretty = pretty
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ value: JSONValue, level: Int = 0) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let b): bytes.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): bytes.append(contentsOf: String(i).utf8)
        case .double(let d): writeDouble(d)
        case .string(let s): writeString(s)
        case .array(let a):
            bytes.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                write(v, level: level + 1)
            }
            if !a.isEmpty { newline(level) }
            bytes.append(UInt8(ascii: "]"))
        case .object(let o):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (k, v) in o {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                newline(level + 1)
                writeString(k)
                bytes.append(UInt8(ascii: ":"))
                if pretty { bytes.append(UInt8(ascii: " ")) }
                write(v, level: level + 1)
            }
            if !o.isEmpty { newline(level) }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func newline(_ level: Int) {
        guard pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    mutating func writeDouble(_ d: Double) {
        guard d.isFinite else { bytes.append(contentsOf: "null".utf8); return }
        if d == d.rounded(), abs(d) < 9_007_199_254_740_992 {
            bytes.append(contentsOf: String(Int64(d)).utf8)
        } else {
            bytes.append(contentsOf: d.description.utf8)
        }
    }

    mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        // Most strings need no escaping: copy them whole.
        let plain = s.withUTF8 { u -> Bool in
            for c in u where c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return false }
            bytes.append(contentsOf: u)
            return true
        }
        if plain { bytes.append(UInt8(ascii: "\"")); return }
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(c)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(c)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0x00..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(Hex.lowerDigits[Int(c >> 4)])
                bytes.append(Hex.lowerDigits[Int(c & 15)])
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
