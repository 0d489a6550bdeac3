extension JWK {
    /// The RFC 7638 JWK thumbprint (SHA-256 over the required members in lexicographic order), base64url.
    public func thumbprint() throws -> String {
        var o = JSONObject()
        switch keyType {
        case .rsa:
            let m = try keyMembers(includePrivate: false)
            o["e"] = .string(Base64URL.encode(m[1].1)); o["kty"] = "RSA"; o["n"] = .string(Base64URL.encode(m[0].1))
        case .ec:
            let m = try keyMembers(includePrivate: false)
            o["crv"] = .string(curve!.rawValue); o["kty"] = "EC"
            o["x"] = .string(Base64URL.encode(m[0].1)); o["y"] = .string(Base64URL.encode(m[1].1))
        case .okp:
            let m = try keyMembers(includePrivate: false)
            o["crv"] = .string(curve!.rawValue); o["kty"] = "OKP"; o["x"] = .string(Base64URL.encode(m[0].1))
        case .oct:
            let m = try keyMembers(includePrivate: true)
            o["k"] = .string(Base64URL.encode(m[0].1)); o["kty"] = "oct"
        }
        return Base64URL.encode(SHA2.sha256(JSONValue.object(o).jsonBytes))
    }
}
