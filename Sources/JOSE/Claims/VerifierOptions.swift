#if canImport(FoundationEssentials)
    public import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    public import Foundation
#endif

/// What a verifier checks beyond the signature.
///
/// Empty sets mean "not checked". ``algorithms`` narrows what the key allows; it never widens it.
public struct VerifierOptions: Sendable {
    /// Accepted `iss` values (exact match). Empty: `iss` is not checked.
    public var issuers: Set<String> = []
    /// Accepted audiences: the token's `aud` (string or array) must contain one. Empty: not checked.
    public var audiences: Set<String> = []
    /// Claims that must be present.
    public var requiredClaims: Set<String> = []
    /// Algorithms the caller accepts, intersected with what the key allows; `nil`: the key decides.
    public var algorithms: Set<JWSAlgorithm>? = nil
    /// Expected header `typ` (compared case-insensitively, `application/` prefix ignored, RFC 8725 §3.11).
    public var type: String? = nil
    /// Seconds of clock skew tolerated for `exp`, `nbf` and `iat`.
    public var leeway: TimeInterval = 0
    /// Where "now" comes from.
    public var clock: TokenClock = .system
    /// Size and depth bounds on the token.
    public var limits: TokenLimits = .default

    public init(
        issuers: Set<String> = [], audiences: Set<String> = [], requiredClaims: Set<String> = [],
        algorithms: Set<JWSAlgorithm>? = nil, type: String? = nil, leeway: TimeInterval = 0,
        clock: TokenClock = .system, limits: TokenLimits = .default
    ) {
        self.issuers = issuers
        self.audiences = audiences
        self.requiredClaims = requiredClaims
        self.algorithms = algorithms
        self.type = type
        self.leeway = leeway
        self.clock = clock
        self.limits = limits
    }
}
