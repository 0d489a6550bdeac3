/// scrypt (RFC 7914), the memory-hard password-based key derivation, on OpenSSL 3's `EVP_KDF`.
///
/// Memory per call is `128 × n × r × p` bytes: 128 MiB at the defaults, which is the point (a
/// guessing rig pays it per guess) and the reason callers bound how many run at once.
///
/// ```swift
/// let salt = try SecureRandom.bytes(16)
/// let key = try Scrypt.derive(password: Array("correct horse".utf8), salt: salt, parameters: .default)
/// ```
public enum Scrypt {
    /// The cost parameters of one derivation.
    public struct Parameters: Sendable, Hashable, CustomStringConvertible {
        /// log2 of the CPU/memory cost `N` (RFC 7914 §2): `N = 2^logN`.
        public var logN: Int
        /// Block size `r`.
        public var r: Int
        /// Parallelisation `p`.
        public var p: Int

        public init(logN: Int, r: Int, p: Int) {
            self.logN = logN
            self.r = r
            self.p = p
        }

        /// N = 2^17, r = 8, p = 1: 128 MiB per derivation (OWASP's first scrypt choice).
        public static let `default` = Parameters(logN: 17, r: 8, p: 1)

        /// Bytes of memory one derivation takes: 128 × N × r × p.
        public var memoryBytes: Int { 128 << logN * r * p }

        /// `true` when each cost is at least `other`'s: a hash made with weaker parameters than
        /// the configured ones is re-made at the next successful sign-in.
        public func isAtLeast(_ other: Parameters) -> Bool { logN >= other.logN && r >= other.r && p >= other.p }

        public var description: String { "ln=\(logN),r=\(r),p=\(p)" }

        /// - Throws: `invalid_input` outside 1 ≤ logN ≤ 24, 1 ≤ r ≤ 32, 1 ≤ p ≤ 16 (at most 2 GiB of memory).
        public func validate() throws {
            guard (1...24).contains(logN), (1...32).contains(r), (1...16).contains(p), memoryBytes <= 2 << 30 else {
                throw TokenError(
                    .invalidInput, "scrypt parameters \(description) are out of range (1 ≤ ln ≤ 24, 1 ≤ r ≤ 32, 1 ≤ p ≤ 16, at most 2 GiB)")
            }
        }
    }

    /// The most bytes a password may have here: far above any password rule, low enough that
    /// nobody can make a derivation hash megabytes.
    public static let maxPasswordBytes = 4096

    /// Derives `length` bytes from `password` and `salt`. CPU- and memory-bound (about a tenth
    /// of a second and ``Parameters/memoryBytes`` at the defaults): run it off any event loop.
    /// - Throws: `invalid_input` for parameters out of range, a password over
    ///   ``maxPasswordBytes``, a salt under 8 bytes or a length outside 16...64;
    ///   `internal_error` when OpenSSL fails (e.g. cannot allocate the memory).
    public static func derive(password: [UInt8], salt: [UInt8], parameters: Parameters, length: Int = 32) throws -> [UInt8] {
        try parameters.validate()
        guard password.count <= maxPasswordBytes else { throw TokenError(.invalidInput, "password is longer than \(maxPasswordBytes) bytes") }
        guard salt.count >= 8, salt.count <= 64 else { throw TokenError(.invalidInput, "scrypt salt must be 8 to 64 bytes, got \(salt.count)") }
        guard (16...64).contains(length) else { throw TokenError(.invalidInput, "scrypt output must be 16 to 64 bytes, got \(length)") }
        return try deriveWithOpenSSL(password: password, salt: salt, parameters: parameters, length: length)
    }
}
