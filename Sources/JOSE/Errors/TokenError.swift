/// The one error type of TokenTool: a stable machine-readable ``Code`` and a readable message.
///
/// Equality and hashing look at the code and the claim only, so tests and callers match on
/// `error.code`, never on the wording. Messages are lower-case, have no trailing period and never
/// contain token, key or secret bytes.
public struct TokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of a failure, from which every caller derives its own answer: the CLI's exit
    /// code (``rejected`` → 1, the others → 2), a server's HTTP status.
    public enum Kind: String, Sendable, CaseIterable {
        /// The token, code, credential or request was judged and refused.
        case rejected
        /// Nothing was judged: a key, a file, a flag or the configuration is unusable.
        case configuration
        /// Nothing was judged: a provider, the store or a C library failed through no fault of the input.
        case infrastructure
    }

    /// A stable error code with its ``Kind``. New codes may be added; a shipped code is never renamed.
    ///
    /// Each code is declared once, as a static constant in the module that mints it, and listed in
    /// that module's array (``joseCodes`` here; `identityCodes`, `sessionsCodes` in the modules
    /// above). Two codes are equal when their raw values are.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The snake_case word the CLI prints and scripts match on.
        public let rawValue: String
        /// The class of failure the code belongs to.
        public let kind: Kind

        /// Declares a code; call it once per code, in the module that mints it.
        public init(_ rawValue: String, _ kind: Kind) {
            self.rawValue = rawValue
            self.kind = kind
        }

        public var description: String { rawValue }
        public static func == (a: Code, b: Code) -> Bool { a.rawValue == b.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// `true` when the error rejects a token, code or credential (``Kind/rejected``);
        /// `false` for configuration, key and infrastructure errors.
        public var rejectsToken: Bool { kind == .rejected }

        /// The token is not a well-formed compact JWS/JWT, or exceeds a size limit.
        public static let malformed = Code("malformed", .rejected)
        /// The header names an algorithm TokenTool never accepts (`none`, unknown names).
        public static let unsupportedAlgorithm = Code("unsupported_algorithm", .rejected)
        /// The algorithm is real, but the selected key (or the caller) does not allow it.
        public static let algorithmNotAllowed = Code("algorithm_not_allowed", .rejected)
        /// No trusted key matches the token's `kid` (or no key can verify the algorithm).
        public static let keyNotFound = Code("key_not_found", .rejected)
        /// The signature or MAC does not verify.
        public static let invalidSignature = Code("invalid_signature", .rejected)
        /// `exp` is at or before now (minus leeway).
        public static let expired = Code("expired", .rejected)
        /// `nbf` is after now (plus leeway).
        public static let notYetValid = Code("not_yet_valid", .rejected)
        /// `iss` is not one of the accepted issuers.
        public static let invalidIssuer = Code("invalid_issuer", .rejected)
        /// `aud` does not contain any accepted audience.
        public static let invalidAudience = Code("invalid_audience", .rejected)
        /// A required claim is absent.
        public static let missingClaim = Code("missing_claim", .rejected)
        /// A claim has the wrong type or an unacceptable value (including `iat` in the future).
        public static let invalidClaim = Code("invalid_claim", .rejected)
        /// A key could not be read or is refused by policy (too short, wrong curve, …).
        public static let invalidKey = Code("invalid_key", .configuration)
        /// Input other than a token (a file, a flag value, JSON) is unusable.
        public static let invalidInput = Code("invalid_input", .configuration)
        /// An OpenSSL or jansson call failed for a reason that is not the input's fault.
        public static let internalError = Code("internal_error", .infrastructure)
        /// The configuration is unusable: a provider's (bad URL, no client id, bad key, secret
        /// lifetime too long), the session service's and an app policy's (lifetimes, master key),
        /// a store's (URL, foreign database), the server's. Declared here so that every module
        /// above JOSE mints it without importing another.
        public static let invalidConfiguration = Code("invalid_configuration", .configuration)
        /// A grant was refused (RFC 6749 §5.2): an authorization code invalid, expired, used or
        /// issued to another client (a provider's answer), or a refresh token of another client.
        /// Declared here so that every module above JOSE mints it without importing another.
        public static let invalidGrant = Code("invalid_grant", .rejected)

        /// Every code the JOSE module declares (``invalidConfiguration`` and ``invalidGrant`` for
        /// the modules above it too).
        public static let joseCodes: [Code] = [
            .malformed, .unsupportedAlgorithm, .algorithmNotAllowed, .keyNotFound, .invalidSignature,
            .expired, .notYetValid, .invalidIssuer, .invalidAudience, .missingClaim, .invalidClaim,
            .invalidKey, .invalidInput, .internalError, .invalidConfiguration, .invalidGrant,
        ]
    }

    /// The stable code; the CLI prints it verbatim.
    public let code: Code
    /// What was expected and what was found, for people.
    public let message: String
    /// The claim at fault (`"exp"`, `"aud"`, …), when one is.
    public var claim: String?
    /// For the operator's log only, never for a client: where an outside call went (an upstream's
    /// URL, without its query) and how it failed underneath, when ``message`` leaves that out.
    /// Servers log it and keep it out of error bodies; it takes no part in equality.
    public var detail: String?
    /// Seconds until the refused request may succeed (a throttle's or a lock's wait), when the
    /// refusal knows; a server answers it as `Retry-After`. It takes no part in equality.
    public var retryAfter: Int64?
    /// Members a server's error answer carries beside its own: the `mfa_token` with which a
    /// sign-in goes on. They may be credentials: the answer is not cached, they are never
    /// logged. They take no part in equality.
    public var answerMembers: JSONObject?

    public init(_ code: Code, _ message: String, claim: String? = nil) {
        self.code = code
        self.message = message
        self.claim = claim
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// This error, saying that a retry may succeed in `seconds` (``retryAfter``).
    public func retrying(after seconds: Int64) -> TokenError {
        var e = self
        e.retryAfter = seconds
        return e
    }

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
