/// Reads a token's header and claims without verifying anything. For display and debugging
/// only: nothing returned here may be trusted.
///
/// A token that every verifier refuses on its header alone (`alg: none`, unknown `crit`,
/// `b64: false`, a header-supplied key, an empty signature) is still shown: ``header`` is then
/// `nil` and ``refusal`` says why it would be refused.
public struct UnverifiedToken: Sendable {
    /// The header as the token carries it, whatever it says.
    public let headerMembers: JSONObject
    /// The header, when it passes the rules every verifier applies before looking at keys.
    public let header: JOSEHeader?
    /// Why any verifier would refuse this token before trying a key; `nil` when it would not.
    public let refusal: TokenError?
    /// The payload as JSON, or `nil` when it is not a JSON object.
    public let claims: ClaimSet?
    public let payload: [UInt8]
    public let signature: [UInt8]

    /// - Throws: `malformed` when the token cannot be read at all (segments, base64url, header
    ///   JSON, size limits).
    public init(_ token: String, limits: TokenLimits = .default) throws {
        let segments = try CompactJWS.split(Array(token.utf8), limits: limits)
        headerMembers = segments.headerDocument.object()
        var refusal: TokenError? = nil
        do {
            header = try CompactJWS.readHeader(segments.headerDocument)
            if segments.signature.isEmpty { refusal = TokenError.malformed("token has an empty signature") }
        } catch let e as TokenError {
            header = nil
            refusal = e
        }
        self.refusal = refusal
        payload = segments.payload
        signature = segments.signature
        claims = (try? JSONDocument(parsing: segments.payload, limits: limits.claims, what: "token payload")).map { ClaimSet(document: $0) }
    }
}
