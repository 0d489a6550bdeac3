/// Reads keys from files, the one way every command and the server do: PEM (SPKI, PKCS#1 RSA
/// public key, X.509 certificate, PKCS#8 or traditional private key), DER, a JWK, or a JWK Set.
///
/// ```swift
/// let key = try KeyFile.readSingle(path: "es256.pem")          // exactly one key
/// let keys = try KeyFile.read(path: "jwks.json").keys          // one key, or every usable key of a set
/// let secret = try KeyFile.readSecret(path: "hs256.key")       // an HMAC secret, as SecretFile reads it
/// ```
///
/// Errors name the file and keep the library's code: `invalid_key` for a bad key, `invalid_input`
/// for an unreadable file (or a URL given where a file is expected).
public enum KeyFile {
    /// The largest key file read.
    public static let maxBytes = 1 << 20

    /// What a key file held: one key, or a JWK Set (kept whole so its refused keys can be named).
    public enum Contents: Sendable {
        case key(JWK)
        case set(JWKSet)

        /// The one key, or the set's usable keys.
        public var keys: [JWK] {
            switch self {
            case .key(let k): return [k]
            case .set(let s): return s.keys
            }
        }
    }

    /// Reads a key file (`-`: standard input) of any of the formats above.
    /// - Throws: `invalid_input` for a URL, an unreadable or oversized file; `invalid_key` for
    ///   content that is no key.
    public static func read(path: String) throws -> Contents {
        let lower = path.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            throw TokenError(.invalidInput, "\(path) is a URL, not a key file. Save it first (curl -fsS -o jwks.json URL) and pass the file")
        }
        return try parse(SecretFile.readBytes(path: path, limit: maxBytes), source: path)
    }

    /// Parses the bytes of a key file already read; `source` names it in errors.
    /// - Throws: `invalid_key` for content that is no key.
    public static func parse(_ bytes: [UInt8], source: String) throws -> Contents {
        do {
            guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else {
                throw TokenError(.invalidKey, "the file is empty")
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if first == UInt8(ascii: "{") {
                let value: JSONValue
                do { value = try JSONValue(parsing: text, limits: JSONLimits(maxBytes: maxBytes, maxDepth: 8, maxTopLevelMembers: 64)) } catch let e
                    as TokenError
                {
                    throw TokenError(.invalidKey, "not a valid JWK or JWKS: \(e.message)")
                }
                if value.objectValue?["keys"] != nil { return .set(try JWKSet(jsonBytes: bytes)) }
                return .key(try JWK(json: text))
            }
            if text.contains("-----BEGIN ") { return .key(try JWK(pem: text)) }
            return .key(try JWK(der: bytes))
        } catch let e as TokenError {
            throw TokenError(e.code, "\(source): \(e.message)", claim: e.claim)
        }
    }

    /// Reads a file that must hold exactly one key (a JWK Set of one usable key will do).
    /// - Throws: as ``read(path:)``; `invalid_input` for a set of several keys.
    public static func readSingle(path: String) throws -> JWK {
        try single(read(path: path), source: path)
    }

    /// The one key of parsed contents; `source` names it in errors.
    /// - Throws: `invalid_input` for a set of several keys.
    public static func single(_ contents: Contents, source: String) throws -> JWK {
        switch contents {
        case .key(let k): return k
        case .set(let s):
            guard s.keys.count == 1, s.rejected.isEmpty else {
                throw TokenError(.invalidInput, "\(source) is a JWK Set with \(s.keys.count + s.rejected.count) keys; give a file with one key")
            }
            return s.keys[0]
        }
    }

    /// Reads an HMAC secret with ``SecretFile/read(path:)`` (one trailing newline dropped) as an
    /// `oct` key.
    /// - Throws: as ``SecretFile/read(path:)``; `invalid_key` for a secret too short for HMAC.
    public static func readSecret(path: String) throws -> JWK {
        let bytes = try SecretFile.read(path: path)
        do { return try JWK(hmacSecret: bytes) } catch let e as TokenError { throw TokenError(e.code, "\(path): \(e.message)") }
    }
}
