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

    /// Checks the shape of an email address: `local@domain`, at most ``maxEmailBytes`` bytes,
    /// no white space or control characters.
    /// - Throws: `invalid_email`.
    public static func checkEmail(_ email: String) throws {
        let scalars = email.unicodeScalars
        guard email.utf8.count <= maxEmailBytes,
            let at = scalars.lastIndex(of: "@"), at != scalars.startIndex, scalars.index(after: at) != scalars.endIndex,
            !scalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw TokenError(.invalidEmail, "email must be an address of the form name@domain, at most \(maxEmailBytes) bytes") }
    }

    static func normalized(_ s: String) -> String { s.precomposedStringWithCanonicalMapping }

    /// The bytes that are hashed: UTF-8 of the NFC form.
    static func bytes(of password: String) -> [UInt8] { Array(normalized(password).utf8) }
}
