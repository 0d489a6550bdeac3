import JOSE

/// A time-based one-time password generator and checker (RFC 6238) with the parameters every
/// authenticator app understands and the server's contract fixes: HMAC-SHA-1, 6 digits, 30-second steps
/// counted from the Unix epoch, one step of drift either way.
///
/// A value of this type holds the shared secret and nothing else; the caller keeps the last
/// accepted step (per user, in the store) and passes it in, so a code is accepted once:
/// ``verify(_:at:lastAcceptedStep:)`` refuses any step at or before it (RFC 6238 §5.2: "the
/// verifier MUST NOT accept the second attempt of the OTP after the successful validation").
///
/// ```swift
/// let totp = try TOTP(secret: try TOTP.generateSecret())
/// let uri = totp.uri(app: "Acme", email: "ada@example.com")    // for a QR code
/// let step = try totp.verify("287082", at: now, lastAcceptedStep: stored)   // store `step`
/// ```
public struct TOTP: Sendable {
    /// Digits in a code (RFC 4226 §5.3: at least 6).
    public static let digits = 6
    /// Seconds in a time step (RFC 6238 §4.1, X; §5.2 recommends 30).
    public static let period: Int64 = 30
    /// Steps of clock drift accepted either side of the current one (RFC 6238 §5.2).
    public static let window: Int64 = 1
    /// Bytes of a new secret: 160 bits, the length of an HMAC-SHA-1 output (RFC 4226 §4, R6).
    public static let secretBytes = 20

    /// The shared secret (K in RFC 4226).
    public let secret: [UInt8]

    /// A generator over `secret`.
    /// - Throws: `invalid_input` for a secret shorter than 16 bytes (RFC 4226 §4, R6: 128 bits at
    ///   least) or longer than 64.
    public init(secret: [UInt8]) throws {
        guard (16...64).contains(secret.count) else {
            throw TokenError(.invalidInput, "a TOTP secret is 16 to 64 bytes; got \(secret.count)")
        }
        self.secret = secret
    }

    /// A generator over a base32 secret (RFC 4648 §6, either case, padding optional), as
    /// authenticator apps and `oathtool --base32` show it.
    /// - Throws: `invalid_input` for text that is not base32 or a secret of the wrong length.
    public init(base32Secret: String) throws {
        guard let bytes = Base32.decode(base32Secret) else { throw TokenError(.invalidInput, "the TOTP secret is not base32") }
        try self.init(secret: bytes)
    }

    /// 160 random bits from the system's generator (``SecureRandom``).
    /// - Throws: `internal_error` if the generator fails.
    public static func generateSecret() throws -> [UInt8] { try SecureRandom.bytes(secretBytes) }

    /// The secret in base32 without padding (32 characters for 160 bits): what a person types
    /// into an authenticator app and what `otpauth://` URIs carry.
    public var base32Secret: String { Base32.encode(secret, padding: false) }

    /// The time step of a Unix time: floor(t / 30) (RFC 6238 §4.2, T0 = 0).
    public static func step(at unixSeconds: Int64) -> Int64 {
        unixSeconds >= 0 ? unixSeconds / period : (unixSeconds - period + 1) / period
    }

    /// The code of one time step, `digits` decimal digits with leading zeros.
    /// - Throws: `internal_error` if OpenSSL fails.
    public func code(atStep step: Int64) throws -> String {
        try Self.hotp(secret: secret, counter: UInt64(bitPattern: step), digits: Self.digits)
    }

    /// The code of the step holding `unixSeconds`.
    /// - Throws: `internal_error` if OpenSSL fails.
    public func code(at unixSeconds: Int64) throws -> String { try code(atStep: Self.step(at: unixSeconds)) }

    /// Checks a code typed by a person against the steps around `unixSeconds`, and returns the
    /// step it matched: the caller stores it as the new last accepted step.
    ///
    /// Spaces in the code are ignored (apps show "287 082"); anything else but exactly six ASCII
    /// digits is refused. Every candidate step is computed and compared in constant time, so the
    /// time taken does not say which step matched. A step at or before `lastAcceptedStep` is never
    /// accepted: that refuses a replayed code, and any older code once a newer one was used.
    /// - Throws: `invalid_mfa_code` for a malformed, wrong, stale or replayed code;
    ///   `internal_error` if OpenSSL fails.
    public func verify(_ code: String, at unixSeconds: Int64, lastAcceptedStep: Int64?) throws -> Int64 {
        let typed = Array(code.utf8.filter { $0 != UInt8(ascii: " ") })
        guard typed.count == Self.digits, typed.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw TokenError(.invalidMFACode, "a TOTP code is \(Self.digits) digits")
        }
        let now = Self.step(at: unixSeconds)
        var matched: Int64?
        for step in (now - Self.window)...(now + Self.window) {
            let expected = Array(try self.code(atStep: step).utf8)
            if ConstantTime.equals(expected, typed) && matched == nil { matched = step }
        }
        guard let matched else { throw TokenError(.invalidMFACode, "the TOTP code is wrong or outside its time window") }
        if let lastAcceptedStep, matched <= lastAcceptedStep {
            throw TokenError(.invalidMFACode, "the TOTP code was already used, or a newer one was")
        }
        return matched
    }

    /// HOTP (RFC 4226 §5.3): HMAC-SHA-1 of the 8-byte big-endian counter, dynamic truncation to
    /// 31 bits, modulo 10^digits, left-padded with zeros. `digits` is 6 to 8 (RFC 6238's appendix
    /// vectors use 8).
    static func hotp(secret: [UInt8], counter: UInt64, digits: Int) throws -> String {
        precondition((6...8).contains(digits), "HOTP has 6 to 8 digits")
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> UInt64(56 - 8 * $0)) }
        let mac = try HMAC.sha1(key: secret, data: message)
        // RFC 4226 §5.4: the low 4 bits of the last byte give the offset of 4 bytes, top bit cleared.
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            UInt32(mac[offset] & 0x7F) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }
}
