/// The one error type of TokenTool: a stable machine-readable ``Code`` and a readable message.
///
/// Equality and hashing look at the code and the claim only, so tests and callers match on
/// `error.code`, never on the wording. Messages are lower-case, have no trailing period and never
/// contain token, key or secret bytes.
public struct TokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code. New codes may be added; a shipped code is never renamed.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The token is not a well-formed compact JWS/JWT, or exceeds a size limit.
        public static let malformed = Code(rawValue: "malformed")
        /// The header names an algorithm TokenTool never accepts (`none`, unknown names).
        public static let unsupportedAlgorithm = Code(rawValue: "unsupported_algorithm")
        /// The algorithm is real, but the selected key (or the caller) does not allow it.
        public static let algorithmNotAllowed = Code(rawValue: "algorithm_not_allowed")
        /// No trusted key matches the token's `kid` (or no key can verify the algorithm).
        public static let keyNotFound = Code(rawValue: "key_not_found")
        /// The signature or MAC does not verify.
        public static let invalidSignature = Code(rawValue: "invalid_signature")
        /// `exp` is at or before now (minus leeway).
        public static let expired = Code(rawValue: "expired")
        /// `nbf` is after now (plus leeway).
        public static let notYetValid = Code(rawValue: "not_yet_valid")
        /// `iss` is not one of the accepted issuers.
        public static let invalidIssuer = Code(rawValue: "invalid_issuer")
        /// `aud` does not contain any accepted audience.
        public static let invalidAudience = Code(rawValue: "invalid_audience")
        /// A required claim is absent.
        public static let missingClaim = Code(rawValue: "missing_claim")
        /// A claim has the wrong type or an unacceptable value (including `iat` in the future).
        public static let invalidClaim = Code(rawValue: "invalid_claim")
        /// A key could not be read or is refused by policy (too short, wrong curve, …).
        public static let invalidKey = Code(rawValue: "invalid_key")
        /// Input other than a token (a file, a flag value, JSON) is unusable.
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// An OpenSSL or jansson call failed for a reason that is not the input's fault.
        public static let internalError = Code(rawValue: "internal_error")

        /// Codes that do not mean "this token or credential was rejected": configuration,
        /// keys, input files, infrastructure. The CLI exits 2 for these, 1 for the rest.
        public static let configurationCodes: Set<String> = [
            "invalid_key", "invalid_input", "internal_error",
            // Identity and Sessions configuration/infrastructure codes:
            "provider_unavailable", "store_unavailable", "store_too_new", "invalid_configuration",
            "invalid_client", "redirect_uri_mismatch", "function_failed",
        ]

        /// `true` when the error rejects a token, code or credential (CLI exit 1);
        /// `false` for configuration, key and infrastructure errors (CLI exit 2).
        public var rejectsToken: Bool { !Self.configurationCodes.contains(rawValue) }
    }

    /// The stable code; the CLI prints it verbatim.
    public let code: Code
    /// What was expected and what was found, for people.
    public let message: String
    /// The claim at fault (`"exp"`, `"aud"`, …), when one is.
    public var claim: String?

    public init(_ code: Code, _ message: String, claim: String? = nil) {
        self.code = code
        self.message = message
        self.claim = claim
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (a: TokenError, b: TokenError) -> Bool { a.code == b.code && a.claim == b.claim }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(claim)
    }
}

extension TokenError {
    static func malformed(_ message: String) -> TokenError { TokenError(.malformed, message) }
    static func invalidKey(_ message: String) -> TokenError { TokenError(.invalidKey, message) }
    static func invalidInput(_ message: String) -> TokenError { TokenError(.invalidInput, message) }
}
