public import JOSE

/// One person as an identity provider vouches for them, normalized across providers.
///
/// `(provider, issuer, subject)` identifies the person; every other field is optional,
/// type-checked and bounded by the verifier that produced it.
public struct Identity: Sendable, Hashable, Codable {
    /// The provider's name: `google`, `apple`, `facebook`, or a custom provider's configured name.
    public var provider: String
    /// The provider's stable user id (`sub`, or Facebook's user id).
    public var subject: String
    /// The verified `iss` of a custom provider's token, which may trust several issuers whose
    /// subjects are unrelated; `nil` for the built-in providers (each has one issuer).
    public var issuer: String?
    public var email: String?
    /// `true` only when the provider says the email is verified.
    public var emailVerified: Bool
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    /// An https URL.
    public var picture: String?
    public var locale: String?
    /// The verified claims or provider response this identity was made from.
    public var rawClaims: JSONObject

    public init(
        provider: String, subject: String, issuer: String? = nil, email: String? = nil, emailVerified: Bool = false,
        name: String? = nil, givenName: String? = nil, familyName: String? = nil,
        picture: String? = nil, locale: String? = nil, rawClaims: JSONObject = JSONObject()
    ) {
        self.provider = provider
        self.subject = subject
        self.issuer = issuer
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.picture = picture
        self.locale = locale
        self.rawClaims = rawClaims
    }

    enum CodingKeys: String, CodingKey {
        case provider, subject, issuer, email, emailVerified = "email_verified", name, givenName = "given_name"
        case familyName = "family_name", picture, locale, rawClaims = "raw_claims"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        provider = try c.decode(String.self, forKey: .provider)
        subject = try c.decode(String.self, forKey: .subject)
        issuer = try c.decodeIfPresent(String.self, forKey: .issuer)
        email = try c.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try c.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? false
        name = try c.decodeIfPresent(String.self, forKey: .name)
        givenName = try c.decodeIfPresent(String.self, forKey: .givenName)
        familyName = try c.decodeIfPresent(String.self, forKey: .familyName)
        picture = try c.decodeIfPresent(String.self, forKey: .picture)
        locale = try c.decodeIfPresent(String.self, forKey: .locale)
        rawClaims = (try c.decodeIfPresent(JSONValue.self, forKey: .rawClaims))?.objectValue ?? JSONObject()
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(provider, forKey: .provider)
        try c.encode(subject, forKey: .subject)
        try c.encodeIfPresent(issuer, forKey: .issuer)
        try c.encodeIfPresent(email, forKey: .email)
        try c.encode(emailVerified, forKey: .emailVerified)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(givenName, forKey: .givenName)
        try c.encodeIfPresent(familyName, forKey: .familyName)
        try c.encodeIfPresent(picture, forKey: .picture)
        try c.encodeIfPresent(locale, forKey: .locale)
        if !rawClaims.isEmpty { try c.encode(JSONValue.object(rawClaims), forKey: .rawClaims) }
    }
}
