import Foundation
import JOSE

/// What a password and an email address may be.
///
/// Passwords are counted in Unicode scalars after NFC normalisation, so the NFC and NFD
/// spellings of one password are one password of one length; they are hashed in that form too.
public enum PasswordRule {
    /// The longest password, in Unicode scalars after NFC.
    public static let maxLength = 128
    /// The longest email address, in UTF-8 bytes (RFC 5321 §4.5.3.1.3 allows 254 in a path).
    public static let maxEmailBytes = 254

    /// Checks `password` against the rule.
    /// - Throws: `invalid_password` for fewer than `minLength` or more than ``maxLength`` scalars.
    public static func check(_ password: String, minLength: Int) throws {
        let count = length(of: password)
        guard count >= minLength, count <= maxLength else {
            throw TokenError(.invalidPassword, "password must be \(minLength) to \(maxLength) characters long")
        }
    }

    /// A password's length as the rule counts it: Unicode scalars after NFC.
    public static func length(of password: String) -> Int { normalized(password).unicodeScalars.count }

    /// The key an email is compared by: NFC, then lower-cased.
    public static func emailKey(_ email: String) -> String {
        normalized(email).lowercased()
    }

    /// Checks that `email` is one conservative RFC 5322 addr-spec (§3.4.1), at most
    /// ``maxEmailBytes`` bytes: a dot-atom local part of at most 64 bytes (letters, digits and
    /// `!#$%&'*+-=?^_{}~`, not starting with `-`), `@`, and a domain of two or more labels of
    /// letters, digits and inner hyphens. Nothing a mail program could read as a second address,
    /// a display name, a route, a program or an option: no `,` `;` `<` `>` `(` `)` `"` `\` `[` `]`
    /// `:` `/` `|`, white space or control characters. Letters may be non-ASCII (RFC 6531).
    /// - Throws: `invalid_email`.
    public static func checkEmail(_ email: String) throws {
        guard isAddrSpec(email) else {
            throw TokenError(.invalidEmail, "email must be one address of the form name@domain.example, at most \(maxEmailBytes) bytes")
        }
    }

    /// Whether `email` passes ``checkEmail(_:)``.
    public static func isAddrSpec(_ email: String) -> Bool {
        let email = normalized(email)  // NFD and NFC spellings are one address
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= maxEmailBytes, parts.count == 2, (1...64).contains(parts[0].utf8.count), !parts[0].hasPrefix("-") else {
            return false
        }
        let specials = Set("!#$%&'*+-=?^_{}~".unicodeScalars)
        func letterOrDigit(_ c: Unicode.Scalar) -> Bool {
            if c.isASCII { return ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) }
            let p = c.properties
            return p.isAlphabetic || p.numericType != nil || [.nonspacingMark, .spacingMark].contains(p.generalCategory)
        }
        let atoms = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        guard atoms.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy { letterOrDigit($0) || specials.contains($0) } }) else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.unicodeScalars.allSatisfy { letterOrDigit($0) || $0 == "-" }
            }
    }

    static func normalized(_ s: String) -> String { s.precomposedStringWithCanonicalMapping }

    /// The bytes that are hashed: UTF-8 of the NFC form.
    static func bytes(of password: String) -> [UInt8] { Array(normalized(password).utf8) }
}
