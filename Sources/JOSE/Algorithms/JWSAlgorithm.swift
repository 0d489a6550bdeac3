/// A JWS signature algorithm (RFC 7518 §3, RFC 8037 §3.1, RFC 9864 §2.2). `none` is deliberately absent.
public enum JWSAlgorithm: String, Sendable, CaseIterable, Hashable, Codable, Comparable {
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512"
    case edDSA = "EdDSA"
    /// RFC 9864's fully specified name for EdDSA with Ed25519: the same signature as `EdDSA` on an Ed25519 key.
    case ed25519 = "Ed25519"

    /// The signature scheme an algorithm belongs to (HMAC, RSASSA-PKCS1-v1_5, RSASSA-PSS, ECDSA, EdDSA).
    public enum Scheme: Sendable { case hmac, rsaPKCS1, rsaPSS, ecdsa, eddsa }

    /// The signature scheme of this algorithm (the hash and curve are ``hashLength`` and ``curve``).
    public var scheme: Scheme {
        switch self {
        case .hs256, .hs384, .hs512: return .hmac
        case .rs256, .rs384, .rs512: return .rsaPKCS1
        case .ps256, .ps384, .ps512: return .rsaPSS
        case .es256, .es384, .es512: return .ecdsa
        case .edDSA, .ed25519: return .eddsa
        }
    }

    /// Length of the hash output in bytes (SHA-256/384/512); 64 for EdDSA (SHA-512 inside).
    public var hashLength: Int {
        switch self {
        case .hs256, .rs256, .ps256, .es256: return 32
        case .hs384, .rs384, .ps384, .es384: return 48
        case .hs512, .rs512, .ps512, .es512, .edDSA, .ed25519: return 64
        }
    }

    /// The curve an ES* algorithm requires (RFC 7518 §3.4).
    public var curve: JWK.Curve? {
        switch self {
        case .es256: return .p256
        case .es384: return .p384
        case .es512: return .p521
        case .edDSA, .ed25519: return .ed25519
        default: return nil
        }
    }

    var digest: FetchedDigest? {
        switch hashLength {
        case _ where scheme == .eddsa: return nil
        case 32: return .sha256
        case 48: return .sha384
        default: return .sha512
        }
    }

    public static func < (a: JWSAlgorithm, b: JWSAlgorithm) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Parses a header or flag value. `none` in any spelling and unknown names are refused.
    public static func parse(_ name: String) throws -> JWSAlgorithm {
        if let alg = JWSAlgorithm(rawValue: name) { return alg }
        if name.lowercased() == "none" {
            throw TokenError(.unsupportedAlgorithm, "alg \"\(name.prefix(16))\" (unsecured JWS) is never accepted")
        }
        let shown = name.count > 32 ? String(name.prefix(32)) + "…" : name
        throw TokenError(
            .unsupportedAlgorithm, "alg \"\(shown)\" is not supported; expected one of \(allCases.map(\.rawValue).joined(separator: ", "))")
    }
}
