public import Foundation
public import JOSE

/// A dotted path into the claims: `user_data.name` is `claims["user_data"]["name"]`.
public struct ClaimPath: Sendable, Hashable, CustomStringConvertible {
    public let components: [String]

    /// - Throws: `invalid_configuration` for an empty path, an empty component or more than 8 levels.
    public init(_ path: String) throws {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !path.isEmpty, parts.allSatisfy({ !$0.isEmpty }), parts.count <= 8 else {
            throw TokenError(.invalidConfiguration, "claim path \"\(path.prefix(100))\" is not name(.name)* with at most 8 levels")
        }
        components = parts
    }

    public var description: String { components.joined(separator: ".") }

    /// The value at this path, or `nil` when any step is missing or not an object.
    public func value(in claims: JSONObject) -> JSONValue? {
        var current: JSONValue = .object(claims)
        for c in components {
            guard let next = current.objectValue?[c] else { return nil }
            current = next
        }
        return current
    }
}

/// Any JWT-issuing identity provider (Auth0, Cognito, Keycloak, your own): configured keys,
/// algorithms, issuer and audience, and a mapping from claim paths to identity fields.
///
/// ```swift
/// var config = CustomJWTProvider.Configuration(name: "acme", issuers: ["https://id.acme.test"], audiences: ["api"])
/// config.mapping[.name] = try ClaimPath("user_data.name")
/// let provider = try CustomJWTProvider(configuration: config, keys: .remote(jwks))
/// let identity = try await provider.verify(token: token)
/// ```
public struct CustomJWTProvider: Sendable {
    public struct Configuration: Sendable {
        /// The provider name written to ``Identity/provider``.
        public var name: String
        public var issuers: Set<String>
        public var audiences: Set<String>
        /// Accepted algorithms (narrowing what the keys allow); `nil`: the keys decide.
        public var algorithms: Set<JWSAlgorithm>?
        /// Where each field comes from; fields not listed use the standard OIDC claim
        /// (`sub`, `email`, `email_verified`, `name`, `given_name`, `family_name`, `picture`, `locale`).
        public var mapping: [IdentityField: ClaimPath] = [:]
        /// Fields that must be present (the subject always is).
        public var requiredFields: Set<IdentityField> = [.subject]
        public var leeway: TimeInterval = 0
        public var clock: TokenClock = .system

        public init(name: String = "jwt", issuers: Set<String>, audiences: Set<String>, algorithms: Set<JWSAlgorithm>? = nil) {
            self.name = name
            self.issuers = issuers
            self.audiences = audiences
            self.algorithms = algorithms
        }
    }

    public let configuration: Configuration
    private let keys: KeySource

    /// The names of the built-in providers, which a custom provider may not take.
    public static let builtInProviderNames: Set<String> = ["google", "apple", "facebook"]

    /// - Throws: `invalid_configuration` without an issuer or an audience (a token from any
    ///   issuer, or for any audience, must not sign anyone in), without a provider name, or with
    ///   the name of a built-in provider (``builtInProviderNames``: its users are not this provider's).
    public init(configuration: Configuration, keys: KeySource) throws {
        guard !configuration.issuers.isEmpty else { throw TokenError(.invalidConfiguration, "a custom JWT provider needs at least one issuer") }
        guard !configuration.audiences.isEmpty else { throw TokenError(.invalidConfiguration, "a custom JWT provider needs at least one audience") }
        guard !configuration.name.isEmpty, configuration.name.count <= 64 else {
            throw TokenError(.invalidConfiguration, "the provider name must be 1 to 64 characters")
        }
        guard !Self.builtInProviderNames.contains(configuration.name.lowercased()) else {
            throw TokenError(.invalidConfiguration, "the provider name \"\(configuration.name)\" is a built-in provider's; choose another name")
        }
        self.configuration = configuration
        self.keys = keys
    }

    /// Verifies the token and maps its claims to an ``Identity``.
    /// - Throws: JOSE's token codes, `missing_claim` for a required field, `invalid_claim`, `provider_unavailable`.
    public func verify(token: String) async throws -> Identity {
        let options = VerifierOptions(
            issuers: configuration.issuers, audiences: configuration.audiences, requiredClaims: ["exp"],
            algorithms: configuration.algorithms, leeway: configuration.leeway, clock: configuration.clock)
        let claims = try await keys.verify(token, options: options).claims.object
        var values: [IdentityField: JSONValue] = [:]
        var names: [IdentityField: String] = [:]
        for field in IdentityField.allCases {
            let path = try configuration.mapping[field] ?? ClaimPath(field.oidcClaim)
            names[field] = path.description
            if let v = path.value(in: claims), v != .null { values[field] = v }
        }
        for field in (configuration.requiredFields.union([.subject])).sorted(by: { $0.rawValue < $1.rawValue }) where values[field] == nil {
            throw TokenError(.missingClaim, "token has no \"\(names[field]!)\", required for \(field.rawValue)", claim: names[field])
        }
        var identity = try Identity.normalized(provider: configuration.name, values: values, claimNames: names, rawClaims: claims)
        identity.issuer = claims["iss"]?.stringValue  // verified against the configured issuers above
        return identity
    }
}
