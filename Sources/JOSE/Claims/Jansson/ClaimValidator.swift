internal import CJansson

/// Validates registered claims directly on the jansson tree, without building Swift values.
enum ClaimValidator {
    static func validate(_ doc: JSONDocument, options: VerifierOptions) throws {
        let now = options.clock.now().timeIntervalSince1970
        let leeway = max(0, options.leeway)

        if let exp = try numericDate(doc, "exp"), now >= exp + leeway {
            // RFC 7519 §4.1.4: the token must not be accepted on or after exp.
            throw TokenError(.expired, "token expired at \(UTCTime.format(exp))", claim: "exp")
        }
        if let nbf = try numericDate(doc, "nbf"), now + leeway < nbf {
            throw TokenError(.notYetValid, "token is not valid before \(UTCTime.format(nbf))", claim: "nbf")
        }
        if let iat = try numericDate(doc, "iat"), iat > now + leeway {
            throw TokenError(.invalidClaim, "token was issued in the future, at \(UTCTime.format(iat))", claim: "iat")
        }
        if !options.issuers.isEmpty {
            guard let iss = doc.member("iss") else {
                throw TokenError(.missingClaim, "token has no \"iss\"; expected \(list(options.issuers))", claim: "iss")
            }
            guard let value = JSONDocument.string(iss) else { throw TokenError(.invalidIssuer, "token \"iss\" is not a string", claim: "iss") }
            guard options.issuers.contains(value) else {
                throw TokenError(.invalidIssuer, "issuer \(quote(value)) is not accepted; expected \(list(options.issuers))", claim: "iss")
            }
        }
        if !options.audiences.isEmpty {
            guard let aud = doc.member("aud") else {
                throw TokenError(.missingClaim, "token has no \"aud\"; expected \(list(options.audiences))", claim: "aud")
            }
            var found: [String] = []
            switch UInt32(JSONDocument.type(aud)) {
            case JSON_STRING.rawValue:
                found = [JSONDocument.string(aud)!]
            case JSON_ARRAY.rawValue:
                for i in 0..<json_array_size(aud) {
                    guard let s = JSONDocument.string(json_array_get(aud, i)) else {
                        throw TokenError(.invalidAudience, "token \"aud\" array holds a non-string", claim: "aud")
                    }
                    found.append(s)
                }
            default:
                throw TokenError(.invalidAudience, "token \"aud\" is neither a string nor an array of strings", claim: "aud")
            }
            guard found.contains(where: options.audiences.contains) else {
                let shown = found.isEmpty ? "an empty audience" : "audience " + found.prefix(5).map(quote).joined(separator: ", ")
                throw TokenError(.invalidAudience, "\(shown) does not include \(list(options.audiences))", claim: "aud")
            }
        }
        for name in options.requiredClaims.sorted() where doc.member(name) == nil {
            throw TokenError(.missingClaim, "token has no \"\(name)\", which is required", claim: name)
        }
    }

    /// RFC 7519 §2 NumericDate: a JSON number. Anything else is `invalid_claim`.
    static func numericDate(_ doc: JSONDocument, _ name: String) throws -> Double? {
        guard let m = doc.member(name) else { return nil }
        switch UInt32(JSONDocument.type(m)) {
        case JSON_INTEGER.rawValue: return Double(json_integer_value(m))
        case JSON_REAL.rawValue: return json_real_value(m)
        default:
            let v = JSONDocument.value(m)
            throw TokenError(.invalidClaim, "\"\(name)\" is a \(v.typeName), not a NumericDate (seconds since 1970)", claim: name)
        }
    }

    static func quote(_ s: String) -> String { "\"" + (s.count > 64 ? String(s.prefix(64)) + "…" : s) + "\"" }
    static func list(_ set: Set<String>) -> String {
        let sorted = set.sorted()
        return sorted.count == 1 ? quote(sorted[0]) : "one of " + sorted.map(quote).joined(separator: ", ")
    }
}
