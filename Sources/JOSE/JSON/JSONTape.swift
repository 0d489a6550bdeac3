/// A token header or claims object, parsed strictly into a flat list of nodes over its own
/// bytes: one allocation for the nodes, none per string or member. Swift values (`String`,
/// `JSONValue`) are made only for what is read.
///
/// Accepts exactly what jansson's `json_loadb(..., JSON_REJECT_DUPLICATES)` accepts for an
/// object at the top level (RFC 8259 grammar; strings of valid UTF-8 without control
/// characters, surrogates or `\u0000`; integers within Int64; reals that do not overflow;
/// duplicate member names, compared after unescaping, refused), and bounds the size, the
/// depth and the top-level member count first. The token path uses this instead of jansson
/// because jansson spends ~100k instructions on a 600-byte claims object (callgrind), well
/// beyond the microsecond budget of a whole verification (docs/performance.md).
///
/// Immutable after init, so concurrent reads are fine.
final class JSONTape: @unchecked Sendable {
    enum Kind: UInt8 { case object, array, string, int, double, `true`, `false`, null }

    struct Node {
        var kind: Kind
        /// Strings: the content holds at least one backslash escape.
        var escaped: Bool
        /// Strings: content range (without quotes). Numbers: the literal's range.
        var start: Int32
        var end: Int32
        /// Index of the node after this one's subtree.
        var next: Int32
        /// Objects: members; arrays: elements.
        var count: Int32
        /// Integers: the value; reals: the bit pattern.
        var bits: Int64
    }

    let bytes: [UInt8]
    private(set) var nodes: [Node]

    /// Parses `bytes`, which must hold one JSON object.
    /// - Throws: `malformed` naming `what`, saying what was expected and found.
    init(parsing bytes: [UInt8], limits: JSONLimits, what: String) throws {
        self.bytes = bytes
        self.nodes = []
        if bytes.count > limits.maxBytes {
            throw TokenError.malformed("\(what) is \(bytes.count) bytes; the limit is \(limits.maxBytes)")
        }
        var parser = Parser(limits: limits)
        let result: Parser.Failure? = bytes.withUnsafeBufferPointer { parser.parseDocument($0) }
        if let failure = result {
            switch failure {
            case .tooDeep(let depth):
                throw TokenError.malformed("\(what) nests deeper than \(limits.maxDepth) levels (at least \(depth))")
            case .notObject:
                throw TokenError.malformed("\(what) is not a JSON object")
            case .syntax(let reason, let offset):
                throw TokenError.malformed("\(what) is not valid JSON: \(reason) at offset \(offset)")
            }
        }
        nodes = parser.nodes
        let members = Int(nodes[0].count)
        if members > limits.maxTopLevelMembers {
            throw TokenError.malformed("\(what) has \(members) members; the limit is \(limits.maxTopLevelMembers)")
        }
    }

    // MARK: reading

    /// The root object.
    static let root = 0

    func kind(_ i: Int) -> Kind { nodes[i].kind }

    /// The value of member `name` of the object at `object` (default: the root).
    func member(_ name: String, in object: Int = 0) -> Int? {
        var name = name
        return name.withUTF8 { n in member(n, in: object) }
    }

    func member(_ name: UnsafeBufferPointer<UInt8>, in object: Int) -> Int? {
        let node = nodes[object]
        guard node.kind == .object else { return nil }
        var k = object + 1
        for _ in 0..<node.count {
            if keyEquals(k, name) { return k + 1 }
            k = Int(nodes[k + 1].next)
        }
        return nil
    }

    /// The members of the object at `object`: (key node, value node) pairs.
    func members(_ object: Int) -> [(key: Int, value: Int)] {
        var out: [(key: Int, value: Int)] = []
        let node = nodes[object]
        out.reserveCapacity(Int(node.count))
        var k = object + 1
        for _ in 0..<node.count {
            out.append((k, k + 1))
            k = Int(nodes[k + 1].next)
        }
        return out
    }

    /// The element nodes of the array at `array`.
    func elements(_ array: Int) -> [Int] {
        var out: [Int] = []
        let node = nodes[array]
        out.reserveCapacity(Int(node.count))
        var e = array + 1
        for _ in 0..<node.count {
            out.append(e)
            e = Int(nodes[e].next)
        }
        return out
    }

    func count(_ i: Int) -> Int { Int(nodes[i].count) }

    /// The node after the subtree at `i` (the next element or member key of its parent).
    func next(_ i: Int) -> Int { Int(nodes[i].next) }

    func int(_ i: Int) -> Int64? { nodes[i].kind == .int ? nodes[i].bits : nil }

    func double(_ i: Int) -> Double? {
        switch nodes[i].kind {
        case .int: return Double(nodes[i].bits)
        case .double: return Double(bitPattern: UInt64(bitPattern: nodes[i].bits))
        default: return nil
        }
    }

    func string(_ i: Int) -> String? {
        let node = nodes[i]
        guard node.kind == .string else { return nil }
        return bytes.withUnsafeBufferPointer { b in
            let raw = UnsafeBufferPointer(rebasing: b[Int(node.start)..<Int(node.end)])
            if !node.escaped { return String(decoding: raw, as: UTF8.self) }
            return String(decoding: Self.unescape(raw), as: UTF8.self)
        }
    }

    /// Compares the string at `i` with `expected` without making a Swift String.
    func stringEquals(_ i: Int, _ expected: String) -> Bool {
        guard nodes[i].kind == .string else { return false }
        var expected = expected
        return expected.withUTF8 { keyEquals(i, $0) }
    }

    private func keyEquals(_ k: Int, _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        let node = nodes[k]
        return bytes.withUnsafeBufferPointer { b in
            let raw = UnsafeBufferPointer(rebasing: b[Int(node.start)..<Int(node.end)])
            if node.escaped { return Self.unescape(raw).elementsEqual(name) }
            return raw.count == name.count && (raw.isEmpty || memcmp(raw.baseAddress!, name.baseAddress!, raw.count) == 0)
        }
    }

    func value(_ i: Int = 0) -> JSONValue {
        let node = nodes[i]
        switch node.kind {
        case .object:
            var members: [(key: String, value: JSONValue)] = []
            members.reserveCapacity(Int(node.count))
            var k = i + 1
            for _ in 0..<node.count {
                members.append((string(k)!, value(k + 1)))
                k = Int(nodes[k + 1].next)
            }
            return .object(JSONObject(members))
        case .array:
            var out: [JSONValue] = []
            out.reserveCapacity(Int(node.count))
            var e = i + 1
            for _ in 0..<node.count {
                out.append(value(e))
                e = Int(nodes[e].next)
            }
            return .array(out)
        case .string: return .string(string(i)!)
        case .int: return .int(node.bits)
        case .double: return .double(Double(bitPattern: UInt64(bitPattern: node.bits)))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }

    func object(_ i: Int = 0) -> JSONObject {
        if case .object(let o) = value(i) { return o }
        return JSONObject()
    }

    /// Decodes the escapes of a string's content (already validated by the parser).
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32 {
            var v: UInt32 = 0
            for j in at..<(at + 4) { v = v << 4 | UInt32(hexValue(raw[j])) }
            return v
        }
        while i < raw.count {
            let c = raw[i]
            guard c == UInt8(ascii: "\\") else { out.append(c); i += 1; continue }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(i)
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = hex4(i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &out)
            default: out.append(e)  // " \ /
            }
        }
        return out
    }

    static func hexValue(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return 0xFF
        }
    }

    static func appendUTF8(_ s: UInt32, to out: inout [UInt8]) {
        if s < 0x80 { out.append(UInt8(s)) }
        else if s < 0x800 { out.append(UInt8(0xC0 | s >> 6)); out.append(UInt8(0x80 | s & 0x3F)) }
        else if s < 0x10000 {
            out.append(UInt8(0xE0 | s >> 12)); out.append(UInt8(0x80 | s >> 6 & 0x3F)); out.append(UInt8(0x80 | s & 0x3F))
        } else {
            out.append(UInt8(0xF0 | s >> 18)); out.append(UInt8(0x80 | s >> 12 & 0x3F))
            out.append(UInt8(0x80 | s >> 6 & 0x3F)); out.append(UInt8(0x80 | s & 0x3F))
        }
    }
}

// MARK: - parser

private struct Parser {
    enum Failure: Error {
        case syntax(String, offset: Int)
        case tooDeep(Int)
        case notObject
    }

    let limits: JSONLimits
    var nodes: [JSONTape.Node] = []
    var p: UnsafePointer<UInt8> = UnsafePointer(bitPattern: 1)!
    var start: UnsafePointer<UInt8> = UnsafePointer(bitPattern: 1)!
    var end: UnsafePointer<UInt8> = UnsafePointer(bitPattern: 1)!

    init(limits: JSONLimits) {
        self.limits = limits
        nodes.reserveCapacity(48)
    }

    var offset: Int { p - start }

    func syntax(_ reason: String) -> Failure { .syntax(reason, offset: p - start) }

    mutating func parseDocument(_ buffer: UnsafeBufferPointer<UInt8>) -> Failure? {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .syntax("'[' or '{' expected near end of file", offset: 0) }
        start = base
        p = base
        end = base + buffer.count
        skipSpace()
        guard p < end else { return syntax("'[' or '{' expected near end of file") }
        if p.pointee == UInt8(ascii: "[") {
            // jansson accepts an array here; the caller wants an object. Check the syntax first
            // so the error is the same as jansson's would be for a broken array.
            if let failure = parseValue(depth: 1) { return failure }
            skipSpace()
            if p < end { return syntax("end of file expected") }
            return .notObject
        }
        guard p.pointee == UInt8(ascii: "{") else { return syntax("'[' or '{' expected") }
        if let failure = parseValue(depth: 1) { return failure }
        skipSpace()
        if p < end { return syntax("end of file expected") }
        return nil
    }

    @inline(__always) mutating func skipSpace() {
        while p < end {
            let c = p.pointee
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            p += 1
        }
    }

    mutating func parseValue(depth: Int) -> Failure? {
        guard p < end else { return syntax("unexpected end of file") }
        let c = p.pointee
        switch c {
        case UInt8(ascii: "{"):
            if depth > limits.maxDepth { return .tooDeep(depth) }
            return parseObject(depth: depth)
        case UInt8(ascii: "["):
            if depth > limits.maxDepth { return .tooDeep(depth) }
            return parseArray(depth: depth)
        case UInt8(ascii: "\""):
            return parseString()
        case UInt8(ascii: "t"): return literal("true", .true)
        case UInt8(ascii: "f"): return literal("false", .false)
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return parseNumber()
        default:
            return syntax("invalid token")
        }
    }

    mutating func append(_ kind: JSONTape.Kind, start s: Int = 0, end e: Int = 0, escaped: Bool = false, bits: Int64 = 0) {
        let index = nodes.count
        nodes.append(JSONTape.Node(kind: kind, escaped: escaped, start: Int32(s), end: Int32(e), next: Int32(index + 1), count: 0, bits: bits))
    }

    mutating func literal(_ word: StaticString, _ kind: JSONTape.Kind) -> Failure? {
        let n = word.utf8CodeUnitCount
        guard end - p >= n, memcmp(p, word.utf8Start, n) == 0 else { return syntax("invalid token") }
        p += n
        if p < end, Self.isWordByte(p.pointee) { return syntax("invalid token") }
        append(kind)
        return nil
    }

    static func isWordByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
    }

    mutating func parseObject(depth: Int) -> Failure? {
        let index = nodes.count
        append(.object)
        p += 1
        var count: Int32 = 0
        skipSpace()
        if p < end && p.pointee == UInt8(ascii: "}") {
            p += 1
            nodes[index].next = Int32(nodes.count)
            return nil
        }
        while true {
            skipSpace()
            guard p < end, p.pointee == UInt8(ascii: "\"") else { return syntax(p < end ? "string or '}' expected" : "unexpected end of file") }
            let keyIndex = nodes.count
            if let failure = parseString() { return failure }
            if let failure = checkDuplicate(object: index, key: keyIndex, count: Int(count)) { return failure }
            skipSpace()
            guard p < end, p.pointee == UInt8(ascii: ":") else { return syntax("':' expected") }
            p += 1
            skipSpace()
            if let failure = parseValue(depth: depth + 1) { return failure }
            count += 1
            skipSpace()
            guard p < end else { return syntax("unexpected end of file") }
            if p.pointee == UInt8(ascii: ",") { p += 1; continue }
            if p.pointee == UInt8(ascii: "}") { p += 1; break }
            return syntax("'}' expected")
        }
        nodes[index].count = count
        nodes[index].next = Int32(nodes.count)
        return nil
    }

    /// Compares the new key with the earlier keys of the same object (after unescaping).
    mutating func checkDuplicate(object: Int, key: Int, count: Int) -> Failure? {
        guard count > 0 else { return nil }
        let new = nodes[key]
        let newLength = new.end - new.start
        let base = start
        var k = object + 1
        for _ in 0..<count {
            let old = nodes[k]
            let same: Bool
            if !old.escaped && !new.escaped {
                same = old.end - old.start == newLength
                    && (newLength == 0 || memcmp(base + Int(old.start), base + Int(new.start), Int(newLength)) == 0)
            } else {
                same = unescaped(old) == unescaped(new)
            }
            if same {
                let shown = String(decoding: unescaped(new).prefix(64), as: UTF8.self)
                return .syntax("duplicate object key '\(shown)'", offset: Int(new.end))
            }
            k = Int(nodes[k + 1].next)
        }
        return nil
    }

    func unescaped(_ node: JSONTape.Node) -> [UInt8] {
        let raw = UnsafeBufferPointer(start: start + Int(node.start), count: Int(node.end - node.start))
        return node.escaped ? JSONTape.unescape(raw) : Array(raw)
    }

    mutating func parseArray(depth: Int) -> Failure? {
        let index = nodes.count
        append(.array)
        p += 1
        var count: Int32 = 0
        skipSpace()
        if p < end && p.pointee == UInt8(ascii: "]") {
            p += 1
            nodes[index].next = Int32(nodes.count)
            return nil
        }
        while true {
            skipSpace()
            if let failure = parseValue(depth: depth + 1) { return failure }
            count += 1
            skipSpace()
            guard p < end else { return syntax("unexpected end of file") }
            if p.pointee == UInt8(ascii: ",") { p += 1; continue }
            if p.pointee == UInt8(ascii: "]") { p += 1; break }
            return syntax("']' expected")
        }
        nodes[index].count = count
        nodes[index].next = Int32(nodes.count)
        return nil
    }

    static func hex4(_ q: UnsafePointer<UInt8>) -> UInt32? {
        var v: UInt32 = 0
        for j in 0..<4 {
            let h = JSONTape.hexValue(q[j])
            if h == 0xFF { return nil }
            v = v << 4 | UInt32(h)
        }
        return v
    }

    mutating func parseString() -> Failure? {
        p += 1  // opening quote
        let contentStart = p - start
        var escaped = false
        while true {
            guard p < end else { return syntax("premature end of input") }
            let c = p.pointee
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { return syntax("control character 0x\(String(c, radix: 16)) in string") }
            if c < 0x80 {
                if c == UInt8(ascii: "\\") {
                    escaped = true
                    guard end - p >= 2 else { return syntax("premature end of input") }
                    switch p[1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        p += 2
                    case UInt8(ascii: "u"):
                        guard end - p >= 6, let v = Self.hex4(p + 2) else { return syntax("invalid escape") }
                        if v == 0 { return syntax("\\u0000 is not allowed without JSON_ALLOW_NUL") }
                        if v >= 0xDC00 && v <= 0xDFFF { return syntax("invalid Unicode '\\u\(String(v, radix: 16))'") }
                        if v >= 0xD800 && v <= 0xDBFF {
                            guard end - p >= 12, p[6] == UInt8(ascii: "\\"), p[7] == UInt8(ascii: "u"), let low = Self.hex4(p + 8),
                                  low >= 0xDC00 && low <= 0xDFFF
                            else { return syntax("invalid Unicode '\\u\(String(v, radix: 16))'") }
                            p += 12
                        } else {
                            p += 6
                        }
                    default:
                        return syntax("invalid escape")
                    }
                } else {
                    p += 1
                }
                continue
            }
            // Multi-byte UTF-8 (RFC 3629): no overlongs, no surrogates, nothing above U+10FFFF.
            let n: Int
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: n = 2
            case 0xE0: n = 3; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: n = 3
            case 0xED: n = 3; hi = 0x9F
            case 0xF0: n = 4; lo = 0x90
            case 0xF1...0xF3: n = 4
            case 0xF4: n = 4; hi = 0x8F
            default: return syntax("unable to decode byte 0x\(String(c, radix: 16))")
            }
            guard end - p >= n else { return syntax("unable to decode byte 0x\(String(c, radix: 16))") }
            guard p[1] >= lo && p[1] <= hi else { return syntax("unable to decode byte 0x\(String(c, radix: 16))") }
            for j in 2..<max(n, 2) where p[j] & 0xC0 != 0x80 {
                return syntax("unable to decode byte 0x\(String(c, radix: 16))")
            }
            p += n
        }
        append(.string, start: contentStart, end: p - start, escaped: escaped)
        p += 1  // closing quote
        return nil
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    mutating func parseNumber() -> Failure? {
        let s = p
        var negative = false
        if p.pointee == UInt8(ascii: "-") {
            negative = true
            p += 1
            guard p < end, Self.isDigit(p.pointee) else { return syntax("invalid token") }
        }
        var isReal = false
        if p.pointee == UInt8(ascii: "0") {
            p += 1
            if p < end && Self.isDigit(p.pointee) { return syntax("invalid token") }
        } else {
            while p < end && Self.isDigit(p.pointee) { p += 1 }
        }
        if p < end && p.pointee == UInt8(ascii: ".") {
            isReal = true
            p += 1
            guard p < end, Self.isDigit(p.pointee) else { return syntax("invalid token") }
            while p < end && Self.isDigit(p.pointee) { p += 1 }
        }
        if p < end && (p.pointee == UInt8(ascii: "e") || p.pointee == UInt8(ascii: "E")) {
            isReal = true
            p += 1
            if p < end && (p.pointee == UInt8(ascii: "+") || p.pointee == UInt8(ascii: "-")) { p += 1 }
            guard p < end, Self.isDigit(p.pointee) else { return syntax("invalid token") }
            while p < end && Self.isDigit(p.pointee) { p += 1 }
        }
        if p < end && Self.isWordByte(p.pointee) { return syntax("invalid token") }
        let text = UnsafeBufferPointer(start: s, count: p - s)
        if !isReal {
            // Int64 with overflow detection (jansson: "too big integer").
            var value: Int64 = 0
            for c in text.dropFirst(negative ? 1 : 0) {
                let d = Int64(c - UInt8(ascii: "0"))
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (r, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 { p = s; return syntax(negative ? "too big negative integer" : "too big integer") }
                value = r
            }
            append(.int, start: s - start, end: p - start, bits: value)
        } else {
            guard let d = Double(String(decoding: text, as: UTF8.self)), d.isFinite else {
                p = s
                return syntax("real number overflow")
            }
            append(.double, start: s - start, end: p - start, bits: Int64(bitPattern: d.bitPattern))
        }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
