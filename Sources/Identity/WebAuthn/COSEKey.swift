public import JOSE

/// A credential public key as COSE (RFC 9052 §7, RFC 9053), read into a JOSE key so that its
/// signatures are checked by JOSE's OpenSSL verification, like any token's.
///
/// Accepted (WebAuthn Level 2 §5.8.5's recommended set): EC2 P-256 with ES256 (alg −7), OKP Ed25519
/// with EdDSA (alg −8), RSA with RS256 (alg −257; 2048 bits at least, as JOSE requires).
public struct COSEKey: Sendable {
    /// The COSE algorithm (−7, −8, −257).
    public let coseAlgorithm: Int64
    /// The JOSE algorithm it is: ES256, EdDSA, RS256.
    public let algorithm: JWSAlgorithm
    /// The public key, its JWK `alg` set to ``algorithm`` so it allows nothing else.
    public let key: JWK

    /// COSE algorithm → JOSE algorithm and COSE key type (RFC 9053 §2.1, §2.2; RFC 8812 §2).
    static let accepted: [Int64: (JWSAlgorithm, kty: Int64)] = [-7: (.es256, 2), -8: (.edDSA, 1), -257: (.rs256, 3)]

    /// Reads a decoded COSE_Key map.
    /// - Throws: `webauthn_unsupported` for another key type, curve or algorithm;
    ///   `webauthn_malformed` for missing or malformed members or a key JOSE refuses (off-curve
    ///   point, short RSA modulus).
    public init(_ value: CBORValue) throws {
        guard let map = value.mapValue else { throw TokenError(.webAuthnMalformed, "the credential public key is not a COSE map") }
        guard let kty = map[1]?.intValue, let alg = map[3]?.intValue else {
            throw TokenError(.webAuthnMalformed, "the COSE key has no integer kty (1) or alg (3)")
        }
        guard let (jose, expectedKty) = Self.accepted[alg] else {
            throw TokenError(.webAuthnUnsupported, "COSE algorithm \(alg) is not accepted; ES256 (-7), EdDSA (-8) and RS256 (-257) are")
        }
        guard kty == expectedKty else { throw TokenError(.webAuthnUnsupported, "COSE key type \(kty) does not fit algorithm \(alg)") }
        func bytes(_ label: Int64) throws -> [UInt8] {
            guard let b = map[label]?.bytesValue else { throw TokenError(.webAuthnMalformed, "the COSE key has no byte string \(label)") }
            return b
        }
        var jwk = JSONObject()
        switch kty {
        case 2:
            guard map[-1]?.intValue == 1 else { throw TokenError(.webAuthnUnsupported, "the EC2 COSE key's curve is not P-256 (1)") }
            jwk["kty"] = .string("EC")
            jwk["crv"] = .string("P-256")
            jwk["x"] = .string(Base64URL.encode(try bytes(-2)))
            jwk["y"] = .string(Base64URL.encode(try bytes(-3)))
        case 1:
            guard map[-1]?.intValue == 6 else { throw TokenError(.webAuthnUnsupported, "the OKP COSE key's curve is not Ed25519 (6)") }
            jwk["kty"] = .string("OKP")
            jwk["crv"] = .string("Ed25519")
            jwk["x"] = .string(Base64URL.encode(try bytes(-2)))
        default:
            jwk["kty"] = .string("RSA")
            jwk["n"] = .string(Base64URL.encode(try bytes(-1)))
            jwk["e"] = .string(Base64URL.encode(try bytes(-2)))
        }
        jwk["alg"] = .string(jose.rawValue)
        do { key = try JWK(jsonObject: jwk) } catch let e as TokenError {
            throw TokenError(.webAuthnMalformed, "the COSE key is not a usable key: \(e.message)")
        }
        guard !key.isPrivate else { throw TokenError(.webAuthnMalformed, "the COSE key holds a private key") }
        coseAlgorithm = alg
        algorithm = jose
    }

    /// Checks `signature` (ECDSA in DER, as WebAuthn §6.5.6 sends it) over `data`.
    /// - Throws: `invalid_signature` when it does not verify.
    func verify(signature: [UInt8], over data: [UInt8]) throws {
        guard try key.verify(signature: signature, over: data, algorithm: algorithm, encoding: .der) else {
            throw TokenError(.invalidSignature, "the \(algorithm.rawValue) signature does not verify")
        }
    }
}
