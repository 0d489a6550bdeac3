/// Random identifiers and secrets from OpenSSL's generator (``SecureRandom``): the one maker.
///
/// ```swift
/// try RandomID.make()                  // 22 base64url characters (128 bits)
/// try RandomID.base64URL(bytes: 32)    // 43 base64url characters (256 bits)
/// try RandomID.hex(bytes: 12)          // 24 lower-case hex digits
/// ```
public enum RandomID {
    /// 128 random bits, base64url: 22 characters (user, session and token ids, `jti`).
    /// - Throws: `internal_error` if the generator fails.
    public static func make() throws -> String { try base64URL(bytes: 16) }

    /// `bytes` random bytes, base64url without padding.
    /// - Throws: `internal_error` if the generator fails.
    public static func base64URL(bytes: Int) throws -> String { Base64URL.encode(try SecureRandom.bytes(bytes)) }

    /// `bytes` random bytes as lower-case hex digits (24 for 12: the shape of an App Services id).
    /// - Throws: `internal_error` if the generator fails.
    public static func hex(bytes: Int) throws -> String { Hex.encode(try SecureRandom.bytes(bytes)) }
}
