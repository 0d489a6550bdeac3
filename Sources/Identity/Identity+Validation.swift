import Foundation
public import JOSE

/// The fields of ``Identity`` that a claim can fill, named as in its JSON form.
public enum IdentityField: String, Sendable, Hashable, CaseIterable {
    case subject, email, emailVerified = "email_verified", name, givenName = "given_name"
    case familyName = "family_name", picture, locale
}

/// Bounds on identity fields. Values outside them are `invalid_claim`, never silently cut.
public enum IdentityLimits {
    /// OIDC `sub` is at most 255 ASCII characters (OpenID Connect Core §2).
    public static let subject = 255
    /// RFC 5321 §4.5.3.1: 64-octet local part, 255-octet domain; 320 in all (254 in practice).
    public static let email = 320
    public static let name = 256
    public static let picture = 2048
    /// BCP 47 tags are short; 35 covers every registered form.
    public static let locale = 35
}

extension Identity {
    /// Builds an identity from provider values, type-checking and bounding each one.
    ///
    /// `values` maps fields to raw JSON values; `claimNames` names the claim each came from
    /// (for errors). `emailVerified` accepts booleans and the strings "true"/"false" (Apple).
    /// - Throws: `missing_claim` without a subject; `invalid_claim` (with the claim name) for a
    ///   value of the wrong type, too long, a picture that is not an https URL, a malformed email.
    public static func normalized(
        provider: String, values: [IdentityField: JSONValue], claimNames: [IdentityField: String] = [:],
        rawClaims: JSONObject
    ) throws -> Identity {
        func claim(_ f: IdentityField) -> String { claimNames[f] ?? f.rawValue }
        func string(_ f: IdentityField, max: Int) throws -> String? {
            guard let v = values[f] else { return nil }
            switch v {
            case .null: return nil
            case .string(let s):
                guard s.count <= max else {
                    throw TokenError(.invalidClaim, "\"\(claim(f))\" is \(s.count) characters; the limit is \(max)", claim: claim(f))
                }
                guard !s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    throw TokenError(.invalidClaim, "\"\(claim(f))\" contains control characters", claim: claim(f))
                }
                return s.isEmpty ? nil : s
            default:
                throw TokenError(.invalidClaim, "\"\(claim(f))\" is a \(v.typeName); expected a string", claim: claim(f))
            }
        }
        let subject: String
        switch values[.subject] {
        case .int(let i)?: subject = String(i)
        default:
            guard let s = try string(.subject, max: IdentityLimits.subject) else {
                throw TokenError(.missingClaim, "no subject: \"\(claim(.subject))\" is absent or empty", claim: claim(.subject))
            }
            subject = s
        }
        var identity = Identity(provider: provider, subject: subject, rawClaims: rawClaims)
        if let email = try string(.email, max: IdentityLimits.email) {
            guard isEmailShaped(email) else { throw TokenError(.invalidClaim, "\"\(claim(.email))\" is not an email address", claim: claim(.email)) }
            identity.email = email
        }
        switch values[.emailVerified] {
        case nil, .null?: identity.emailVerified = false
        case .bool(let b)?: identity.emailVerified = b
        case .string("true")?: identity.emailVerified = true
        case .string("false")?: identity.emailVerified = false
        case let v?:
            throw TokenError(
                .invalidClaim,
                "\"\(claim(.emailVerified))\" is \(v.typeName == "string" ? "a string other than \"true\"/\"false\"" : "a \(v.typeName)"); expected a boolean",
                claim: claim(.emailVerified))
        }
        if identity.email == nil { identity.emailVerified = false }
        identity.name = try string(.name, max: IdentityLimits.name)
        identity.givenName = try string(.givenName, max: IdentityLimits.name)
        identity.familyName = try string(.familyName, max: IdentityLimits.name)
        if let picture = try string(.picture, max: IdentityLimits.picture) {
            guard let c = URLComponents(string: picture), c.scheme?.lowercased() == "https", let host = c.host, !host.isEmpty, c.user == nil else {
                throw TokenError(.invalidClaim, "\"\(claim(.picture))\" is not an https URL", claim: claim(.picture))
            }
            identity.picture = picture
        }
        if let locale = try string(.locale, max: IdentityLimits.locale) {
            guard locale.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }) else {
                throw TokenError(.invalidClaim, "\"\(claim(.locale))\" is not a language tag", claim: claim(.locale))
            }
            identity.locale = locale
        }
        return identity
    }

    /// A deliberately plain shape check (RFC 5322 addresses are too liberal to be useful here):
    /// one "@", a local part of 1–64 characters, a domain with a dot and no empty label, no spaces.
    static func isEmailShaped(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...64).contains(parts[0].utf8.count), (3...255).contains(parts[1].utf8.count) else { return false }
        guard !s.unicodeScalars.contains(where: { $0 == " " || $0.properties.generalCategory == .control || $0 == "<" || $0 == ">" }) else {
            return false
        }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }
    }

    /// The identity as the CLI's JSON: `provider, subject, issuer, email, email_verified, name, given_name,
    /// family_name, picture, locale, raw_claims`, absent fields left out.
    public var jsonObject: JSONObject {
        var o: JSONObject = ["provider": .string(provider), "subject": .string(subject)]
        // A custom issuer's subjects are its own: (provider, issuer, subject) is the identity, so
        // whoever reads this back (`token issue --identity-json`) must get the issuer too.
        if let issuer { o["issuer"] = .string(issuer) }
        if let email { o["email"] = .string(email) }
        o["email_verified"] = .bool(emailVerified)
        if let name { o["name"] = .string(name) }
        if let givenName { o["given_name"] = .string(givenName) }
        if let familyName { o["family_name"] = .string(familyName) }
        if let picture { o["picture"] = .string(picture) }
        if let locale { o["locale"] = .string(locale) }
        o["raw_claims"] = .object(rawClaims)
        return o
    }
}

/// The standard OIDC claim for each field.
extension IdentityField {
    var oidcClaim: String {
        switch self {
        case .subject: return "sub"
        default: return rawValue
        }
    }

    /// Values for every field from the standard OIDC claims.
    static func oidcValues(_ claims: JSONObject) -> [IdentityField: JSONValue] {
        var v: [IdentityField: JSONValue] = [:]
        for f in allCases { if let x = claims[f.oidcClaim] { v[f] = x } }
        return v
    }

    static var oidcNames: [IdentityField: String] { Dictionary(uniqueKeysWithValues: allCases.map { ($0, $0.oidcClaim) }) }
}
