import OpenAPIKit
import OIDCProvider

/// The answers of one operation: its shape's success answers and pages, and an error body for
/// every status it can answer with, grouped by status.
enum OpenAPIAnswers {
    /// Each App Services `error_code` name's status, from the server's own table; `BadRequest` is
    /// 400 (its 415, a JSON body sent as a cross-site type, is said where a JSON body is read).
    static let statusOfName: [String: Int] = Dictionary(
        ErrorMapping.byCode.values.map { ($0.name, $0.status) }, uniquingKeysWith: { min($0, $1) })

    /// An RFC 6749 §5.2 code's status: 401 for client authentication, else 400 (``OAuthError``).
    static func status(ofOAuth code: String) -> Int { code == "invalid_client" ? 401 : 400 }

    /// The App Services names a route may answer with: its shape's, every route's, an unknown
    /// `{app}`'s, and a refused bearer's.
    static func errorNames(_ route: RouteDescription, _ shape: RouteShape) -> [String] {
        var names = shape.everyRoute + shape.errors
        if route.path.split(separator: "/").contains(":app") { names.append("AppNotFound") }
        if route.bearer != .none { names.append("InvalidSession") }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    private struct Parts {
        var descriptions: [String] = []
        var json: [JSONSchema] = []
        var html = false
        var text = false
        var script = false
        var headers: [String] = []
    }

    static func responses(_ route: RouteDescription, _ shape: RouteShape) -> OpenAPI.Response.Map {
        var byStatus: [Int: Parts] = [:]
        for answer in shape.answers {
            byStatus[answer.status, default: Parts()].descriptions.append(answer.description)
            byStatus[answer.status]!.headers += answer.headers
            switch answer.payload {
            case .json(let schema): byStatus[answer.status]!.json.append(schema)
            case .html: byStatus[answer.status]!.html = true
            case .text: byStatus[answer.status]!.text = true
            case .script: byStatus[answer.status]!.script = true
            case .none: break
            }
        }
        let names = errorNames(route, shape)
        for status in Set(names.compactMap { statusOfName[$0] }) {
            let here = names.filter { statusOfName[$0] == status }
            byStatus[status, default: Parts()].descriptions.append("an error: " + here.joined(separator: ", "))
            byStatus[status]!.json.append(OpenAPISchemas.appServicesError(here))
        }
        if case .json = shape.body {
            byStatus[415, default: Parts()].descriptions.append("an error: BadRequest (the body was sent as text/plain, form-encoded or multipart)")
            byStatus[415]!.json.append(OpenAPISchemas.appServicesError(["BadRequest"]))
        }
        for status in Set(shape.oauthErrors.map(status(ofOAuth:))) {
            let here = shape.oauthErrors.filter { self.status(ofOAuth: $0) == status }
            byStatus[status, default: Parts()].descriptions.append("an OAuth error: " + here.joined(separator: ", "))
            byStatus[status]!.json.append(OpenAPISchemas.oauthError(here))
            if status == 401 { byStatus[status]!.headers.append("WWW-Authenticate") }
        }
        for status in shape.pages {
            byStatus[status, default: Parts()].descriptions.append("the page, saying what went wrong")
            byStatus[status]!.html = true
        }
        var map = OpenAPI.Response.Map()
        for (status, parts) in byStatus.sorted(by: { $0.key < $1.key }) {
            map[OpenAPI.Response.StatusCode(integerLiteral: status)] = .b(response(status, parts))
        }
        return map
    }

    private static func response(_ status: Int, _ parts: Parts) -> OpenAPI.Response {
        var content = OpenAPI.Content.Map()
        if let first = parts.json.first {
            content[.json] = .b(OpenAPI.Content(schema: parts.json.count == 1 ? first : .any(of: parts.json)))
        }
        if parts.html { content[.html] = .b(OpenAPI.Content(schema: .string)) }
        if parts.text { content[.txt] = .b(OpenAPI.Content(schema: .string)) }
        if parts.script, let type = OpenAPI.ContentType(rawValue: "text/javascript") { content[type] = .b(OpenAPI.Content(schema: .string)) }
        var headers = OpenAPI.Header.Map()
        for name in parts.headers + (status == 429 || status == 503 ? ["Retry-After"] : []) where headers[name] == nil {
            headers[name] = .b(header(name))
        }
        return OpenAPI.Response(
            description: parts.descriptions.joined(separator: "; "), headers: headers.isEmpty ? nil : headers, content: content)
    }

    private static func header(_ name: String) -> OpenAPI.Header {
        switch name {
        case "Retry-After": OpenAPI.Header(schema: .integer(minimum: (0, exclusive: false)), description: "seconds until a retry may succeed")
        case "Cache-Control":
            OpenAPI.Header(schema: .string, description: "no-store on an answer that carries a token; the JWKS may be kept 5 minutes", required: true)
        case "WWW-Authenticate": OpenAPI.Header(schema: .string, description: "Basic, when client authentication failed", required: true)
        default: OpenAPI.Header(schema: .string)
        }
    }
}
