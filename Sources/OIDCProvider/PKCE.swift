import JOSE

/// Proof Key for Code Exchange (RFC 7636) with the one method the server accepts, S256.
/// `plain` is refused: it protects nothing once the authorization request is seen.
public enum PKCE {
    /// `code_challenge_method`s the server accepts (discovery's `code_challenge_methods_supported`).
    public static let methods = ["S256"]

    /// RFC 7636 §4.1: `code_verifier = 43*128unreserved`, unreserved = `A-Z a-z 0-9 - . _ ~`.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy(isUnreserved)
    }

    /// An S256 `code_challenge` is BASE64URL(SHA-256(verifier)): exactly 43 characters of the
    /// base64url alphabet without padding (RFC 7636 §4.2).
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && challenge.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }

    /// RFC 7636 §4.2: `BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`.
    public static func challenge(forVerifier verifier: String) -> String {
        Base64URL.encode(SHA2.sha256(Array(verifier.utf8)))
    }

    /// RFC 7636 §4.6: `true` when `verifier` is a well-formed verifier whose S256 challenge is
    /// `challenge`; compared in constant time.
    public static func verify(verifier: String, challenge: String) -> Bool {
        guard isValidVerifier(verifier) else { return false }
        return ConstantTime.equals(Array(self.challenge(forVerifier: verifier).utf8), Array(challenge.utf8))
    }

    private static func isAlphanumeric(_ c: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
    }

    private static func isUnreserved(_ c: UInt8) -> Bool { isAlphanumeric(c) || "-._~".utf8.contains(c) }
}
