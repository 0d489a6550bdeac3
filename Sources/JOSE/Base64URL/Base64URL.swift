/// Strict base64url (RFC 4648 §5) as JWS requires (RFC 7515 §2): no padding, no white space,
/// nothing outside `A–Z a–z 0–9 - _`, and zero bits in the unused tail of the last character.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Encodes bytes without padding.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if let fast = bytes.withContiguousStorageIfAvailable({ input -> String in
            var out: [UInt8] = []
            append(UnsafeRawBufferPointer(input), to: &out)
            return String(decoding: out, as: UTF8.self)
        }) {
            return fast
        }
        return generic(bytes)
    }

    /// Appends the base64url encoding of `input` to `out` (three bytes per step, one reservation).
    static func append(_ input: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let n = input.count
        let outCount = (n * 4 + 2) / 3
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: outCount))
        out.withUnsafeMutableBufferPointer { o in
            alphabet.withUnsafeBufferPointer { a in
                guard let dst = o.baseAddress.map({ $0 + start }) else { return }
                var i = 0, j = 0
                while i + 3 <= n {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    dst[j] = a[Int(v >> 18 & 63)]; dst[j + 1] = a[Int(v >> 12 & 63)]
                    dst[j + 2] = a[Int(v >> 6 & 63)]; dst[j + 3] = a[Int(v & 63)]
                    i += 3; j += 4
                }
                if n - i == 2 {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                    dst[j] = a[Int(v >> 18 & 63)]; dst[j + 1] = a[Int(v >> 12 & 63)]; dst[j + 2] = a[Int(v >> 6 & 63)]
                } else if n - i == 1 {
                    let v = UInt32(input[i]) << 16
                    dst[j] = a[Int(v >> 18 & 63)]; dst[j + 1] = a[Int(v >> 12 & 63)]
                }
            }
        }
    }

    private static func generic<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let n = bytes.count
        let outCount = (n * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: max(outCount, 1)) { out in
            var o = 0
            var it = bytes.makeIterator()
            var remaining = n
            while remaining >= 3 {
                let b0 = UInt32(it.next()!), b1 = UInt32(it.next()!), b2 = UInt32(it.next()!)
                let v = b0 << 16 | b1 << 8 | b2
                out[o] = alphabet[Int(v >> 18 & 63)]; out[o + 1] = alphabet[Int(v >> 12 & 63)]
                out[o + 2] = alphabet[Int(v >> 6 & 63)]; out[o + 3] = alphabet[Int(v & 63)]
                o += 4; remaining -= 3
            }
            if remaining == 2 {
                let b0 = UInt32(it.next()!), b1 = UInt32(it.next()!)
                let v = b0 << 16 | b1 << 8
                out[o] = alphabet[Int(v >> 18 & 63)]; out[o + 1] = alphabet[Int(v >> 12 & 63)]
                out[o + 2] = alphabet[Int(v >> 6 & 63)]
                o += 3
            } else if remaining == 1 {
                let v = UInt32(it.next()!) << 16
                out[o] = alphabet[Int(v >> 18 & 63)]; out[o + 1] = alphabet[Int(v >> 12 & 63)]
                o += 2
            }
            return o
        }
    }

    /// Why a segment is not strict base64url; `nil` when it is.
    public enum Problem: Error, Sendable, Equatable {
        case invalidCharacter(UInt8, offset: Int)
        case invalidLength
        case nonZeroTrailingBits
        public var message: String {
            switch self {
            case .invalidCharacter(let c, let offset):
                let shown: String
                switch c {
                case 0x3D: shown = "padding '='"
                case 0x20: shown = "a space"
                case 0x2B, 0x2F: shown = "'\(Character(Unicode.Scalar(c)))' (base64, not base64url)"
                case 0x21...0x7E: shown = "'\(Character(Unicode.Scalar(c)))'"
                default: shown = "byte 0x\(String(c, radix: 16))"
                }
                return "contains \(shown) at offset \(offset), outside the base64url alphabet"
            case .invalidLength: return "has a length that no base64url encoding can have"
            case .nonZeroTrailingBits: return "has non-zero unused bits in its last character (not canonical)"
            }
        }
    }

    /// Decodes strictly. Returns the bytes or the reason the input is refused.
    public static func decode<C: Collection>(_ input: C) -> Result<[UInt8], Problem> where C.Element == UInt8 {
        var out: [UInt8] = []
        if let problem = decode(input, into: &out) { return .failure(problem) }
        return .success(out)
    }

    /// Decodes strictly into `out` (replaced; left empty on failure). Returns `nil` on success.
    public static func decode<C: Collection>(_ input: C, into out: inout [UInt8]) -> Problem? where C.Element == UInt8 {
        if let result = input.withContiguousStorageIfAvailable({ decode(contiguous: $0, into: &out) }) { return result }
        return Array(input).withUnsafeBufferPointer { decode(contiguous: $0, into: &out) }
    }

    /// Decodes contiguous input a quad at a time into `out`'s storage (one allocation at most).
    static func decode(contiguous input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Problem? {
        out.removeAll(keepingCapacity: true)
        let n = input.count
        if n % 4 == 1 { return .invalidLength }
        let outCount = n / 4 * 3 + (n % 4 == 0 ? 0 : n % 4 - 1)
        if outCount == 0 { return nil }
        var problem: Problem? = nil
        out = [UInt8](unsafeUninitializedCapacity: outCount) { o, initialized in
            problem = table.withUnsafeBufferPointer { t -> Problem? in
                guard let src = input.baseAddress, let dst = o.baseAddress else { return nil }
                var i = 0, j = 0
                while i + 4 <= n {
                    let a = t[Int(src[i])], b = t[Int(src[i + 1])], c = t[Int(src[i + 2])], d = t[Int(src[i + 3])]
                    if (a | b | c | d) & 0x80 != 0 { return firstInvalid(input, from: i, t) }
                    let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    dst[j] = UInt8(truncatingIfNeeded: v >> 16)
                    dst[j + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    dst[j + 2] = UInt8(truncatingIfNeeded: v)
                    i += 4; j += 3
                }
                let rest = n - i
                if rest == 0 { return nil }
                var v: UInt32 = 0
                for k in 0..<rest {
                    let x = t[Int(src[i + k])]
                    if x == 0xFF { return .invalidCharacter(src[i + k], offset: i + k) }
                    v = v << 6 | UInt32(x)
                }
                if rest == 2 {
                    // RFC 4648 §3.5: the unused bits of the last character must be zero for a canonical encoding.
                    if v & 0xF != 0 { return .nonZeroTrailingBits }
                    dst[j] = UInt8(truncatingIfNeeded: v >> 4)
                } else {
                    if v & 0x3 != 0 { return .nonZeroTrailingBits }
                    dst[j] = UInt8(truncatingIfNeeded: v >> 10)
                    dst[j + 1] = UInt8(truncatingIfNeeded: v >> 2)
                }
                return nil
            }
            initialized = problem == nil ? outCount : 0
        }
        return problem
    }

    private static func firstInvalid(_ input: UnsafeBufferPointer<UInt8>, from i: Int, _ t: UnsafeBufferPointer<UInt8>) -> Problem {
        var k = i
        while t[Int(input[k])] != 0xFF { k += 1 }
        return .invalidCharacter(input[k], offset: k)
    }

    /// Decodes a string strictly, or throws `malformed` naming `what` ("header", "key member \"n\"").
    public static func decode(_ string: String, what: String) throws -> [UInt8] {
        switch decode(string.utf8) {
        case .success(let bytes): return bytes
        case .failure(let problem): throw TokenError.malformed("\(what) is not valid base64url: it \(problem.message)")
        }
    }
}
