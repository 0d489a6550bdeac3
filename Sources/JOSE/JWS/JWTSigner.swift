#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif

/// Signs JWTs (and other compact JWS) with one private key or secret.
///
/// ```swift
/// let key = try JWK.generate(curve: .p256)
/// let signer = try JWTSigner(key: key, keyID: "k1")
/// let jwt = try signer.sign(["sub": "42", "exp": 4102444800])
/// ```
public struct JWTSigner: Sendable {
    public let key: JWK
    public let algorithm: JWSAlgorithm
    /// `kid` written to the header (defaults to the key's `kid`).
    public var keyID: String?
    /// `typ` written to the header; `nil` leaves it out.
    public var type: String? = "JWT"

    /// - Parameter algorithm: defaults to the key's pinned `alg`, else RS256, ES256/384/512 by
    ///   curve, EdDSA, or HS256.
    /// - Throws: `invalid_key` for a public key, `algorithm_not_allowed` for an algorithm the key does not allow.
    public init(key: JWK, algorithm: JWSAlgorithm? = nil, keyID: String? = nil) throws {
        let alg: JWSAlgorithm
        if let algorithm {
            alg = algorithm
        } else {
            let allowed = key.allowedAlgorithms
            guard
                let first = [JWSAlgorithm.rs256, .es256, .es384, .es512, .edDSA, .hs256, .hs384, .hs512].first(where: allowed.contains)
                    ?? allowed.sorted().first
            else {
                throw TokenError(.algorithmNotAllowed, "the key allows no JWS algorithm\(key.algorithm.map { " (its alg is \"\($0)\")" } ?? "")")
            }
            alg = first
        }
        try key.check(alg, for: .sign)
        self.key = key
        self.algorithm = alg
        self.keyID = keyID ?? key.keyID
    }

    /// Signs a claim set.
    public func sign(_ claims: ClaimSet, header extra: JSONObject = JSONObject()) throws -> String {
        try signJWS(payload: JSONValue.object(claims.object).jsonBytes, header: extra)
    }

    /// Signs any `Encodable` claims (encoded with Foundation's JSONEncoder; `Date` as NumericDate).
    public func sign<Claims: Encodable>(_ claims: Claims, header extra: JSONObject = JSONObject()) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, enc in
            var c = enc.singleValueContainer()
            try c.encode(Int64(date.timeIntervalSince1970.rounded(.down)))
        }
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try signJWS(payload: Array(try encoder.encode(claims)), header: extra)
    }

    /// Signs an arbitrary payload as a compact JWS.
    /// - Throws: `invalid_input` if `header` tries to set `alg`, `crit`, `b64` or a key member.
    public func signJWS(payload: [UInt8], header extra: JSONObject = JSONObject()) throws -> String {
        var header = JSONObject()
        header["alg"] = .string(algorithm.rawValue)
        if let type { header["typ"] = .string(type) }
        if let keyID { header["kid"] = .string(keyID) }
        for (name, value) in extra {
            if ["alg", "crit", "b64", "jwk", "jku", "x5u", "x5c"].contains(name) {
                throw TokenError.invalidInput("header member \"\(name)\" cannot be set by the caller")
            }
            header[name] = value
        }
        // One byte buffer: header.payload is signed in place, then the signature is appended.
        var out: [UInt8] = []
        out.reserveCapacity((payload.count + 128) * 4 / 3 + 360)
        JSONValue.object(header).jsonBytes.withUnsafeBytes { Base64URL.append($0, to: &out) }
        out.append(UInt8(ascii: "."))
        payload.withUnsafeBytes { Base64URL.append($0, to: &out) }
        let signature = try out.withUnsafeBytes { try key.material.sign(algorithm, data: $0) }
        out.append(UInt8(ascii: "."))
        signature.withUnsafeBytes { Base64URL.append($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }
}
