import JOSE

/// Recovery codes: the second factor of last resort, shown once when TOTP is confirmed, each
/// good for one sign-in.
///
/// A code is ten characters of Crockford's base32 alphabet (`0–9 a–z` without `i l o u`) in two
/// groups, `xxxxx-xxxxx`: 50 random bits, read aloud or typed without confusing `0`/`o` or `1`/`l`.
/// What is stored is a digest, never the code: SHA-256 over a label, the salt the caller gives (the
/// user's id) and the normalized code. The codes are random and long, so a fast hash suffices (no
/// password hash), and the salt keeps one guess from being tried against every user's codes at once.
///
/// ```swift
/// let codes = try RecoveryCodes.generate()                          // show these once
/// let stored = codes.map { RecoveryCodes.digest(of: $0, salt: userID)! }
/// if let i = RecoveryCodes.match("ABCDE ABCDE", salt: userID, against: stored) { /* spend stored[i] */ }
/// ```
public enum RecoveryCodes {
    /// Codes in a set.
    public static let count = 10
    /// Characters in a code, dash aside.
    public static let length = 10
    /// Crockford's base32 alphabet, lower-case: 32 symbols, so one random byte's low five bits pick one evenly.
    static let alphabet: [UInt8] = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// A new set of ``count`` codes from the system's generator (``SecureRandom``), all different.
    /// - Throws: `internal_error` if the generator fails.
    public static func generate() throws -> [String] {
        var codes: [String] = []
        while codes.count < count {
            let bytes = try SecureRandom.bytes(length)
            var chars = bytes.map { alphabet[Int($0 & 31)] }
            chars.insert(UInt8(ascii: "-"), at: length / 2)
            let code = String(decoding: chars, as: UTF8.self)
            if !codes.contains(code) { codes.append(code) }
        }
        return codes
    }

    /// The code a person typed, in its one spelling: case folded, spaces and dashes dropped, and
    /// Crockford's look-alikes read as what they look like (`o` → `0`, `i` and `l` → `1`).
    /// - Returns: ``length`` alphabet characters, or `nil` when the input is anything else.
    public static func normalized(_ input: String) -> String? {
        guard input.utf8.count <= 64 else { return nil }
        var out: [UInt8] = []
        for var b in input.utf8 {
            if b == UInt8(ascii: " ") || b == UInt8(ascii: "-") { continue }
            if b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") { b += 32 }
            switch b {
            case UInt8(ascii: "o"): b = UInt8(ascii: "0")
            case UInt8(ascii: "i"), UInt8(ascii: "l"): b = UInt8(ascii: "1")
            default: break
            }
            guard alphabet.contains(b) else { return nil }
            out.append(b)
        }
        guard out.count == length else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// The digest stored for a code: SHA-256 of `"tokentool recovery code\0" ‖ salt ‖ "\0" ‖
    /// normalized code`. `nil` when `code` does not normalize.
    public static func digest(of code: String, salt: String) -> [UInt8]? {
        guard let normal = normalized(code) else { return nil }
        return SHA2.sha256(Array("tokentool recovery code\u{0}".utf8) + Array(salt.utf8) + [0] + Array(normal.utf8))
    }

    /// The index in `stored` of the digest `input` matches, or `nil`. Every stored digest is
    /// compared, each in constant time, so the time taken does not say which one matched.
    public static func match(_ input: String, salt: String, against stored: [[UInt8]]) -> Int? {
        guard let candidate = digest(of: input, salt: salt) else { return nil }
        var found: Int?
        for (i, d) in stored.enumerated() where ConstantTime.equals(d, candidate) && found == nil { found = i }
        return found
    }
}
