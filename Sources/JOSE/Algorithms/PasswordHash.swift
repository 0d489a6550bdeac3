/// A password hash as one self-describing string: the scheme, its parameters, the salt and the
/// derived key, `$scrypt$ln=17,r=8,p=1$<salt>$<key>` (base64url, no padding; the PHC string
/// format's layout). Parameters travel with each hash, so raising them later re-hashes old
/// passwords at their next successful sign-in (``needsRehash(for:)``) without locking anyone out.
///
/// ```swift
/// let stored = try PasswordHash.make(password: Array("correct horse".utf8))
/// let ok = try PasswordHash(parsing: stored.encoded).verify(password: Array("correct horse".utf8))
/// ```
public struct PasswordHash: Sendable, Hashable {
    public let parameters: Scrypt.Parameters
    public let salt: [UInt8]
    public let key: [UInt8]

    /// 16 random bytes of salt, 32 bytes of key.
    public static let saltBytes = 16
    public static let keyBytes = 32

    /// Hashes `password` with a fresh random salt.
    /// - Throws: as ``Scrypt/derive(password:salt:parameters:length:)``.
    public static func make(password: [UInt8], parameters: Scrypt.Parameters = .default) throws -> PasswordHash {
        let salt = try SecureRandom.bytes(saltBytes)
        let key = try Scrypt.derive(password: password, salt: salt, parameters: parameters, length: keyBytes)
        return PasswordHash(parameters: parameters, salt: salt, key: key)
    }

    init(parameters: Scrypt.Parameters, salt: [UInt8], key: [UInt8]) {
        self.parameters = parameters
        self.salt = salt
        self.key = key
    }

    /// Reads a string made by ``encoded``.
    /// - Throws: `invalid_input` for anything else (another scheme, parameters out of range,
    ///   a salt or key of the wrong size).
    public init(parsing text: String) throws {
        func bad(_ why: String) -> TokenError { TokenError(.invalidInput, "stored password hash \(why)") }
        guard text.utf8.count <= 256 else { throw bad("is too long") }
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "scrypt" else { throw bad("is not a $scrypt$ string") }
        var values: [Substring: Int] = [:]
        for item in parts[2].split(separator: ",", omittingEmptySubsequences: false) {
            let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2, ["ln", "r", "p"].contains(kv[0]), values[kv[0]] == nil,
                kv[1].utf8.count <= 3, let v = Int(kv[1])
            else { throw bad("has unreadable parameters") }
            values[kv[0]] = v
        }
        guard let ln = values["ln"], let r = values["r"], let p = values["p"] else { throw bad("lacks a parameter") }
        let parameters = Scrypt.Parameters(logN: ln, r: r, p: p)
        try parameters.validate()
        guard let salt = try? Base64URL.decode(String(parts[3]), what: "salt"), (8...64).contains(salt.count),
            let key = try? Base64URL.decode(String(parts[4]), what: "key"), key.count == Self.keyBytes
        else { throw bad("has a bad salt or key") }
        self.init(parameters: parameters, salt: salt, key: key)
    }

    /// The self-describing string to store.
    public var encoded: String { "$scrypt$\(parameters)$\(Base64URL.encode(salt))$\(Base64URL.encode(key))" }

    /// `true` when `password` derives this key; compared in constant time.
    /// - Throws: as ``Scrypt/derive(password:salt:parameters:length:)``.
    public func verify(password: [UInt8]) throws -> Bool {
        let derived = try Scrypt.derive(password: password, salt: salt, parameters: parameters, length: key.count)
        return ConstantTime.equals(derived, key)
    }

    /// `true` when this hash was made with weaker parameters than `target`.
    public func needsRehash(for target: Scrypt.Parameters) -> Bool { !parameters.isAtLeast(target) }
}
