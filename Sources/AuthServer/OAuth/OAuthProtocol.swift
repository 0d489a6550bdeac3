import Foundation
import Hummingbird
import JOSE
import OIDCProvider
import Sessions

extension OAuthError {
    /// The error as the OAuth endpoints answer it.
    var response: Response {
        var headers = HTTPFields()
        if status == 401 { headers[.wwwAuthenticate] = "Basic realm=\"tokentool\"" }
        let body: JSONObject = ["error": .string(error), "error_description": .string(Self.describable(description))]
        return JSONResponse.make(status: status, .object(body), headers: headers, noStore: true)
    }
}

/// An `application/x-www-form-urlencoded` request body (RFC 6749 §3.2, Appendix B): at most
/// 64 KiB, each parameter at most once, an empty value the same as an absent one.
struct OAuthForm: Sendable {
    let fields: [String: String]

    /// - Throws: ``OAuthError`` `invalid_request` for another content type, a body over the
    ///   limit, bad percent-encoding or a repeated parameter.
    static func read(_ request: Request, context: AuthRequestContext) async throws -> OAuthForm {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw OAuthError.invalidRequest("the body must be application/x-www-form-urlencoded")
        }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: context.maxUploadSize) } catch {
            throw OAuthError.invalidRequest("the request body is larger than \(context.maxUploadSize) bytes")
        }
        var fields: [String: String] = [:]
        for pair in String(decoding: buffer.readableBytesView, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(kv[0]), let value = kv.count > 1 ? decode(kv[1]) : "" else {
                throw OAuthError.invalidRequest("the body is not valid form encoding")
            }
            guard fields[name] == nil else { throw OAuthError.invalidRequest("parameter \(describable(name)) is repeated") }
            if !value.isEmpty { fields[name] = value }
        }
        return OAuthForm(fields: fields)
    }

    private static func decode(_ s: Substring) -> String? {
        String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    private static func describable(_ s: String) -> String { OAuthError.describable(String(s.prefix(40))) }

    /// A required parameter of at most `maxBytes`.
    func required(_ name: String, maxBytes: Int = 16 * 1024) throws -> String {
        guard let v = fields[name] else { throw OAuthError.invalidRequest("the \(name) parameter is missing") }
        guard v.utf8.count <= maxBytes else { throw OAuthError.invalidRequest("the \(name) parameter is too long") }
        return v
    }

    func optional(_ name: String) -> String? { fields[name] }
}
