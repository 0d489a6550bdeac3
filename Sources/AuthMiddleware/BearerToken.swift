public import Hummingbird
public import Sessions

/// Why ``AccessTokenMiddleware`` refused a request, as RFC 6750 §3 words it.
///
/// As an `HTTPResponseError` it answers for itself: the status, `WWW-Authenticate: Bearer` with
/// the error code, and a JSON body `{"error","error_description"}` that never holds the token.
public struct BearerTokenError: Error, HTTPResponseError, Sendable, Hashable {
    /// The HTTP status: 401, 400, 403 or 503.
    public var status: HTTPResponse.Status
    /// The RFC 6750 §3.1 error code; `nil` when the request carried no credentials (§3.1: no code then).
    public var code: String?
    /// A fixed, readable description (RFC 6749's character set).
    public var description: String

    /// No `Authorization: Bearer` credentials: 401, `WWW-Authenticate: Bearer`.
    public static let missing = BearerTokenError(status: .unauthorized, code: nil, description: "an access token is required")
    /// A token that is malformed, expired, not ours or fails any check: 401 `invalid_token`.
    public static let invalidToken = BearerTokenError(
        status: .unauthorized, code: "invalid_token",
        description: "the access token is invalid or expired")
    /// The scope the route needs (RFC 6750 §3 `scope`), for `insufficient_scope`; `nil` otherwise.
    public var scope: String? = nil
    /// RFC 6750 §3 `realm`, first in the challenge when set (the sign-in server's own routes say
    /// `tokentool`); `nil` leaves it out.
    public var realm: String? = nil

    /// A refusal of its own; `description` in RFC 6749's character set (others are left out of the answer).
    public init(status: HTTPResponse.Status, code: String?, description: String, scope: String? = nil, realm: String? = nil) {
        self.status = status
        self.code = code
        self.description = description
        self.scope = scope
        self.realm = realm
    }

    /// The answer to the one resource check's refusal (``SessionService/checkAccess(_:audiences:requirement:presentedAs:singleSpace:)``),
    /// with its description: 403 `insufficient_scope` naming the required scopes, else 401 `invalid_token`.
    public static func refused(_ refusal: AccessRefusal, realm: String? = nil) -> BearerTokenError {
        switch refusal.reason {
        case .insufficientScope:
            var e = insufficientScope(refusal.requiredScopes)
            e.description = refusal.description
            e.realm = realm
            return e
        case .invalidToken, .sessionEnded, .wrongClient, .keyBound:
            return BearerTokenError(status: .unauthorized, code: "invalid_token", description: refusal.description, realm: realm)
        }
    }

    /// A valid token without every scope the resource requires: 403 `insufficient_scope`, with
    /// the required scopes in `WWW-Authenticate`'s `scope` (RFC 6750 §3.1).
    public static func insufficientScope(_ required: Set<String>) -> BearerTokenError {
        BearerTokenError(
            status: .forbidden, code: "insufficient_scope", description: "the access token lacks a scope this resource requires",
            scope: required.sorted().joined(separator: " "))
    }
    /// More than one `Authorization` header: 400 `invalid_request`.
    public static let invalidRequest = BearerTokenError(
        status: .badRequest, code: "invalid_request",
        description: "send exactly one Authorization header")
    /// The keys could not be fetched: 503, the token is neither accepted nor blamed.
    public static let unavailable = BearerTokenError(
        status: .serviceUnavailable, code: nil,
        description: "the token issuer's keys are unavailable; try again later")

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        if status == .unauthorized || status == .badRequest || status == .forbidden {
            // Scope tokens are NQCHAR without `"` or `\\` (RFC 6749 §3.3): safe inside the quotes.
            let scopeParameter = scope.map { ", scope=\"\($0)\"" } ?? ""
            let realmParameter = realm.map { "realm=\"\(Self.quotable($0))\"" }
            let parameters = [realmParameter, code.map { "error=\"\($0)\", error_description=\"\(Self.quotable(description))\"\(scopeParameter)" }].compactMap { $0 }
            headers[.wwwAuthenticate] = parameters.isEmpty ? "Bearer" : "Bearer " + parameters.joined(separator: ", ")
        }
        var body = "{\"error\":\"\(code ?? (status == .serviceUnavailable ? "temporarily_unavailable" : "invalid_request"))\""
        body += ",\"error_description\":\"\(Self.quotable(description))\"}"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// `text` in RFC 6749's `error_description` characters (%x20-21 / %x23-5B / %x5D-7E): safe in a
    /// quoted header parameter and a JSON string alike; any other character is left out.
    static func quotable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" }))
    }
}

extension BearerTokenError {
    /// The token of the one `Authorization` header, read by ``BearerCredentials``.
    /// - Throws: ``missing`` without Bearer credentials, ``invalidRequest`` for repeated headers,
    ///   ``invalidToken`` for an empty or over-size token or one that is not a b64token.
    static func token(in values: [String]) throws -> String {
        guard !values.isEmpty else { throw BearerTokenError.missing }
        guard values.count == 1 else { throw BearerTokenError.invalidRequest }
        switch BearerCredentials.token(of: values[0]) {
        case .success(let token): return token
        case .failure(.notBearer): throw BearerTokenError.missing
        case .failure(.malformedToken): throw BearerTokenError.invalidToken
        }
    }
}
