/// Base32 (RFC 4648 §6): the alphabet `A–Z 2–7`, the encoding of TOTP secrets in authenticator
/// apps (Google's Key Uri Format) and of `oathtool --base32`.
///
/// ```swift
/// Base32.encode(Array("foobar".utf8))                 // "MZXW6YTBOI======"
/// Base32.encode(Array("foobar".utf8), padding: false) // "MZXW6YTBOI"
/// Base32.decode("mzxw6ytboi")                         // the bytes of "foobar"
/// ```
public enum Base32 {
    /// RFC 4648 §6, Table 3.
    public static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// 0xFF marks a byte outside the alphabet; lower-case letters decode as upper-case ones.
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() {
            t[Int(c)] = UInt8(i)
            if c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") { t[Int(c + 32)] = UInt8(i) }
        }
        return t
    }()

    /// Encodes `bytes`, five bits a character, with `=` padding to a multiple of eight characters
    /// unless `padding` is false.
    public static func encode(_ bytes: [UInt8], padding: Bool = true) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer: UInt32 = 0
        var bits = 0
        for b in bytes {
            buffer = buffer << 8 | UInt32(b)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int(buffer >> UInt32(bits - 5) & 31)])
                bits -= 5
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        if padding { while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base32 text: either case, `=` padding optional but, when present, complete (to a
    /// multiple of eight characters). No white space and no other characters; the unused low bits
    /// of the last character must be zero, and a length no encoding produces (1, 3 or 6 characters
    /// in the last group) is refused, so every byte string has exactly one accepted spelling per case.
    /// - Returns: the bytes, or `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        var chars = Array(text.utf8)
        if let firstPad = chars.firstIndex(of: UInt8(ascii: "=")) {
            guard chars.count % 8 == 0, chars[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }) else { return nil }
            chars.removeSubrange(firstPad...)
        }
        // Characters in the last group of 8 → whole bytes: 2→1, 4→2, 5→3, 7→4; 1, 3, 6 are impossible.
        switch chars.count % 8 {
        case 1, 3, 6: return nil
        default: break
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for c in chars {
            let v = table[Int(c)]
            guard v != 0xFF else { return nil }
            buffer = buffer << 5 | UInt32(v)
            bits += 5
            if bits >= 8 {
                out.append(UInt8(buffer >> UInt32(bits - 8) & 0xFF))
                bits -= 8
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        guard buffer == 0 else { return nil }  // non-zero unused bits: not a canonical encoding
        return out
    }
}
