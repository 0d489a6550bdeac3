/// The protected header of a compact JWS, as read from the token.
public struct JOSEHeader: Sendable, Hashable {
    /// `alg`, already checked to be a supported JWS algorithm.
    public let algorithm: JWSAlgorithm
    /// `kid`, if present.
    public let keyID: String?
    /// `typ`, if present (e.g. `JWT`, `at+jwt`).
    public let type: String?
    /// `cty`, if present.
    public let contentType: String?
    /// Every member, in token order (built from the jansson tree when first asked for).
    public var members: JSONObject { document?.object() ?? storedMembers }

    private let document: JSONDocument?
    private let storedMembers: JSONObject

    init(algorithm: JWSAlgorithm, keyID: String?, type: String?, contentType: String?, members: JSONObject) {
        self.init(algorithm: algorithm, keyID: keyID, type: type, contentType: contentType, document: nil, storedMembers: members)
    }

    /// A header whose members stay in the parsed (jansson) tree until read.
    init(algorithm: JWSAlgorithm, keyID: String?, type: String?, contentType: String?, document: JSONDocument) {
        self.init(algorithm: algorithm, keyID: keyID, type: type, contentType: contentType, document: document, storedMembers: JSONObject())
    }

    private init(algorithm: JWSAlgorithm, keyID: String?, type: String?, contentType: String?, document: JSONDocument?, storedMembers: JSONObject) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.contentType = contentType
        self.document = document
        self.storedMembers = storedMembers
    }

    public static func == (a: JOSEHeader, b: JOSEHeader) -> Bool {
        a.algorithm == b.algorithm && a.keyID == b.keyID && a.type == b.type && a.contentType == b.contentType && a.members == b.members
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(algorithm); hasher.combine(keyID); hasher.combine(type); hasher.combine(contentType); hasher.combine(members)
    }
}

/// Bounds on token input, checked before any decoding work.
public struct TokenLimits: Sendable, Hashable {
    /// Longest accepted compact token, in bytes.
    public var maxTokenBytes: Int
    /// Bounds on the decoded header.
    public var header: JSONLimits
    /// Bounds on the decoded claims.
    public var claims: JSONLimits

    public init(
        maxTokenBytes: Int = 64 * 1024,
        header: JSONLimits = JSONLimits(maxBytes: 8 * 1024, maxDepth: 4, maxTopLevelMembers: 32),
        claims: JSONLimits = JSONLimits(maxBytes: 64 * 1024, maxDepth: 32, maxTopLevelMembers: 256)
    ) {
        self.maxTokenBytes = maxTokenBytes
        self.header = header
        self.claims = claims
    }

    public static let `default` = TokenLimits()
}
