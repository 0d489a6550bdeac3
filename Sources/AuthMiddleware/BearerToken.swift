public import Hummingbird

/// Why ``AccessTokenMiddleware`` refused a request, as RFC 6750 §3 words it.
///
/// As an `HTTPResponseError` it answers for itself: the status, `WWW-Authenticate: Bearer` with
/// the error code, and a JSON body `{"error","error_description"}` that never holds the token.
public struct BearerTokenError: Error, HTTPResponseError, Sendable, Hashable {
    /// The HTTP status: 401, 400 or 503.
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
        if status == .unauthorized || status == .badRequest {
            headers[.wwwAuthenticate] = code.map { "Bearer error=\"\($0)\", error_description=\"\(description)\"" } ?? "Bearer"
        }
        var body = "{\"error\":\"\(code ?? (status == .serviceUnavailable ? "temporarily_unavailable" : "invalid_request"))\""
        body += ",\"error_description\":\"\(description)\"}"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// Reads RFC 6750 §2.1 credentials: `Authorization: Bearer <b64token>`.
enum BearerCredentials {
    /// Far above any access token this server signs, far below what could hurt.
    static let maxTokenBytes = 8 * 1024

    /// The token of the one `Authorization` header.
    /// - Throws: ``BearerTokenError/missing`` without Bearer credentials, ``BearerTokenError/invalidRequest``
    ///   for repeated headers, ``BearerTokenError/invalidToken`` for a token that is not a b64token.
    static func token(in values: [String]) throws -> String {
        guard !values.isEmpty else { throw BearerTokenError.missing }
        guard values.count == 1 else { throw BearerTokenError.invalidRequest }
        let value = values[0].utf8
        let scheme = value.prefix { $0 != UInt8(ascii: " ") }
        guard String(decoding: scheme, as: UTF8.self).lowercased() == "bearer" else { throw BearerTokenError.missing }
        let token = value.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") }
        guard !token.isEmpty, token.count <= maxTokenBytes, isB64Token(token) else { throw BearerTokenError.invalidToken }
        return String(decoding: token, as: UTF8.self)
    }

    /// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`
    private static func isB64Token(_ bytes: Substring.UTF8View) -> Bool {
        let body = bytes.reversed().drop { $0 == UInt8(ascii: "=") }
        guard !body.isEmpty else { return false }
        return body.allSatisfy { c in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
                || c == UInt8(ascii: "+") || c == UInt8(ascii: "/")
        }
    }
}
