import Foundation
import Hummingbird
import JOSE
import NIOCore

/// JSON responses, built the same way everywhere.
enum JSONResponse {
    static func make(status: Int, _ body: JSONValue, headers extra: HTTPFields = [:], noStore: Bool = false) -> Response {
        make(status: status, bytes: body.jsonBytes, headers: extra, noStore: noStore)
    }

    /// A JSON answer whose body is already encoded.
    static func make(status: Int, bytes: [UInt8], headers extra: HTTPFields = [:], noStore: Bool = false) -> Response {
        var headers = extra
        headers[.contentType] = "application/json"
        if noStore { headers[.cacheControl] = "no-store" }
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// 200 with `body`.
    static func ok(_ body: JSONObject, noStore: Bool = false) -> Response { make(status: 200, .object(body), noStore: noStore) }

    static func noContent() -> Response { Response(status: .noContent) }
}

/// A request's JSON object body, read strictly: at most 64 KiB, duplicate names refused, and
/// every refusal a 4xx naming the member. Bodies are Extended JSON: the object is kept in its
/// relaxed form (``ExtendedJSON``), so members read alike from realm-web and from plain JSON.
struct RequestJSON: Sendable {
    let object: JSONObject

    /// Reads and parses the body of `request`.
    /// - Throws: `request_too_large` over the limit; `bad_request` for anything but a JSON object;
    ///   `invalid_parameter` for a malformed Extended JSON type wrapper.
    static func read(_ request: Request, context: AuthRequestContext) async throws -> RequestJSON {
        try refuseSimpleContentType(request)
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: context.maxUploadSize) } catch is NIOTooManyBytesError {
            throw TokenError(.requestTooLarge, "the request body is larger than \(context.maxUploadSize) bytes")
        }
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        let value: JSONValue
        do {
            value = try JSONValue(parsing: text, limits: JSONLimits(maxBytes: context.maxUploadSize, maxDepth: 16, maxTopLevelMembers: 64))
        } catch let e as TokenError {
            throw TokenError(.badRequest, "the request body is not acceptable JSON: \(e.message)")
        }
        let relaxed = value.objectValue == nil ? value : try ExtendedJSON.relaxed(value)
        guard let object = relaxed.objectValue else {
            throw TokenError(.badRequest, "the request body must be a JSON object, got \(relaxed.typeName)")
        }
        return RequestJSON(object: object)
    }

    /// The three `Content-Type`s a page on any site may make a browser post without a CORS
    /// preflight (Fetch standard, "CORS-safelisted request-header"), by their essence.
    static let simpleContentTypes: Set<String> = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]

    /// Refuses a body that says it is one of ``simpleContentTypes`` (any parameters): such a post
    /// may come from another site's page, so no login or registration is read from it.
    /// `application/json` and a body without `Content-Type` (SDKs that send none) pass.
    /// - Throws: `unsupported_media_type` (415 `BadRequest`).
    static func refuseSimpleContentType(_ request: Request) throws {
        guard let type = request.headers[.contentType] else { return }
        let essence = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if simpleContentTypes.contains(essence) {
            throw TokenError(.unsupportedMediaType, "the body must be sent as application/json, not \(essence)")
        }
    }

    /// A required string member.
    func string(_ name: String, maxBytes: Int = 16 * 1024) throws -> String {
        guard let v = object[name], v != .null else { throw TokenError(.missingParameter, "the request body has no \"\(name)\"") }
        guard let s = v.stringValue else { throw TokenError(.invalidParameter, "\"\(name)\" must be a string, got \(v.typeName)") }
        guard !s.isEmpty, s.utf8.count <= maxBytes else { throw TokenError(.invalidParameter, "\"\(name)\" must be 1…\(maxBytes) bytes") }
        return s
    }

    /// An optional string member.
    func optionalString(_ name: String, maxBytes: Int = 16 * 1024) throws -> String? {
        guard let v = object[name], v != .null else { return nil }
        return try string(name, maxBytes: maxBytes)
    }

    /// An optional object member.
    func optionalObject(_ name: String) throws -> RequestJSON? {
        guard let v = object[name], v != .null else { return nil }
        guard let o = v.objectValue else { throw TokenError(.invalidParameter, "\"\(name)\" must be an object, got \(v.typeName)") }
        return RequestJSON(object: o)
    }
}
