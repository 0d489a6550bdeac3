#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif

/// A key TokenTool can sign or verify with: RSA, EC (P-256/384/521), OKP (Ed25519) or a
/// symmetric secret (`oct`), public or private, with its JWK metadata (`kid`, `use`,
/// `key_ops`, `alg`).
///
/// The key decides which algorithms it may be used with (``allowedAlgorithms``): its JWK
/// `alg` when present, else its type and curve. Weak keys are refused when they are read:
/// RSA under 2048 bits or with e < 3 or an even e, RSA moduli with the ROCA fingerprint,
/// EC points off the curve, secrets shorter than 32 bytes.
///
/// ```swift
/// let key = try JWK(pem: String(contentsOfFile: "rsa.pem", encoding: .utf8))
/// let token = try JWTSigner(key: key).sign(["sub": "42"])
/// ```
public struct JWK: Sendable {
    public enum KeyType: String, Sendable, Hashable, Codable { case rsa = "RSA", ec = "EC", okp = "OKP", oct = "oct" }
    public enum Curve: String, Sendable, Hashable, Codable, CaseIterable {
        case p256 = "P-256", p384 = "P-384", p521 = "P-521", ed25519 = "Ed25519"
        /// Bytes in one coordinate (EC) or in the public key (Ed25519).
        public var coordinateSize: Int {
            switch self {
            case .p256: 32;
            case .p384: 48;
            case .p521: 66;
            case .ed25519: 32
            }
        }
        var openSSLGroupName: String {
            switch self {
            case .p256: "prime256v1";
            case .p384: "secp384r1";
            case .p521: "secp521r1";
            case .ed25519: "ED25519"
            }
        }
    }
    /// What a key is asked to do.
    public enum Operation: String, Sendable { case sign, verify }

    public let keyType: KeyType
    public let curve: Curve?
    /// `true` when the private half (or the secret) is present.
    public let isPrivate: Bool
    /// RSA modulus bits, curve order bits, or secret bits.
    public let bits: Int
    public var keyID: String?
    /// JWK `use`: "sig" or "enc"; a key with `use: "enc"` never signs or verifies.
    public var use: String?
    /// JWK `key_ops`; when present it must contain the operation asked for.
    public var keyOperations: [String]?
    /// JWK `alg` as written (it may name a non-JWS algorithm, e.g. `RSA-OAEP`).
    public var algorithm: String?
    /// Other JWK members kept on export (`x5c`, `x5t`, …), never used to pick or trust a key.
    public var extraMembers: JSONObject = JSONObject()

    // Stored as two optionals rather than as a KeyMaterial: a multi-payload enum of class
    // references keeps its case tag in the pointer's spare bits, which hides the pointer from
    // LeakSanitizer's heap scan and makes every live key look leaked (`make check-memory`).
    private let secretKey: HMACKey?
    private let evpKey: EVPKey?

    /// The secret or the OpenSSL key.
    var material: KeyMaterial {
        if let evpKey { return .evp(evpKey) }
        return .secret(secretKey!)
    }

    init(keyType: KeyType, curve: Curve?, isPrivate: Bool, bits: Int, material: KeyMaterial) {
        self.keyType = keyType
        self.curve = curve
        self.isPrivate = isPrivate
        self.bits = bits
        switch material {
        case .secret(let s): secretKey = s; evpKey = nil
        case .evp(let e): secretKey = nil; evpKey = e
        }
    }

    /// The algorithms this key may sign or verify, from its `alg` if present, else from its
    /// type and curve; HMAC algorithms whose hash is longer than the secret are left out
    /// (RFC 7518 §3.2).
    public var allowedAlgorithms: Set<JWSAlgorithm> {
        let byType: Set<JWSAlgorithm>
        switch keyType {
        case .rsa: byType = [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512]
        case .ec: byType = Set(JWSAlgorithm.allCases.filter { $0.scheme == .ecdsa && $0.curve == curve })
        case .okp: byType = curve == .ed25519 ? [.edDSA, .ed25519] : []
        case .oct: byType = Set([JWSAlgorithm.hs256, .hs384, .hs512].filter { $0.hashLength * 8 <= bits })
        }
        guard let algorithm else { return byType }
        guard let declared = JWSAlgorithm(rawValue: algorithm) else { return [] }
        return byType.contains(declared) ? [declared] : []
    }

    /// Checks that this key may perform `operation` with `alg`, or throws why not.
    ///
    /// - Throws: `algorithm_not_allowed` naming the reason (alg pinned, `use`, `key_ops`,
    ///   secret too short, public key asked to sign).
    public func check(_ alg: JWSAlgorithm, for operation: Operation) throws {
        let name = keyID.map { "key \"\($0)\"" } ?? "the key"
        if let use, use != "sig" {
            throw TokenError(.algorithmNotAllowed, "\(name) has use \"\(use)\", not \"sig\"")
        }
        if let ops = keyOperations, !ops.contains(operation.rawValue) {
            throw TokenError(.algorithmNotAllowed, "\(name) has key_ops \(ops) without \"\(operation.rawValue)\"")
        }
        if operation == .sign && !isPrivate {
            throw TokenError(.invalidKey, "\(name) is a public key; signing needs the private key")
        }
        let allowed = allowedAlgorithms
        guard allowed.contains(alg) else {
            if keyType == .oct && algorithm == nil && alg.scheme == .hmac {
                throw TokenError(
                    .algorithmNotAllowed,
                    "\(name) is a \(bits / 8)-byte secret; \(alg.rawValue) needs at least \(alg.hashLength) bytes (RFC 7518 §3.2)")
            }
            let allowedText = allowed.isEmpty ? "no JWS algorithm" : allowed.sorted().map(\.rawValue).joined(separator: ", ")
            let why = algorithm.map { " (its alg is \"\($0)\")" } ?? ""
            throw TokenError(.algorithmNotAllowed, "token alg \(alg.rawValue) is not allowed by \(name), which allows \(allowedText)\(why)")
        }
    }

    /// The public half (same metadata, private members dropped). Secrets stay secrets.
    public var publicKey: JWK {
        guard isPrivate, keyType != .oct, case .evp(let evp) = material else { return self }
        var pub = JWK(keyType: keyType, curve: curve, isPrivate: false, bits: bits, material: .evp(evp.publicOnly()))
        pub.keyID = keyID
        pub.use = use
        pub.keyOperations = keyOperations?.compactMap { $0 == "sign" ? "verify" : ($0 == "verify" ? $0 : nil) }
        pub.algorithm = algorithm
        pub.extraMembers = extraMembers
        return pub
    }

    /// A one-line description without key bytes: `RSA 2048-bit public key, kid "k1", allows RS256, …`.
    public var summary: String {
        var parts: [String] = []
        switch keyType {
        case .rsa: parts.append("RSA \(bits)-bit")
        case .ec, .okp: parts.append(curve?.rawValue ?? keyType.rawValue)
        case .oct: parts.append("\(bits / 8)-byte secret")
        }
        parts[0] += keyType == .oct ? "" : (isPrivate ? " private key" : " public key")
        if let keyID { parts.append("kid \"\(keyID)\"") }
        let algs = allowedAlgorithms.sorted().map(\.rawValue)
        parts.append(algs.isEmpty ? "allows no JWS algorithm" : "allows \(algs.joined(separator: ", "))")
        return parts.joined(separator: ", ")
    }
}
