import OpenAPIKit

/// What the OpenAPI document says of one route beyond its row of the route table: its query
/// parameters, its body and every answer it can give. The shapes are keyed by `"METHOD path"`
/// (``RouteShape/all``), the path as the table writes it (`:name` parameters).
struct RouteShape: Sendable {
    /// A request body; a route that reads one refuses a request without it.
    enum Body: Sendable {
        /// `application/json` (read as Extended JSON).
        case json(JSONSchema)
        /// `application/x-www-form-urlencoded`.
        case form(JSONSchema)
    }

    /// What an answer's body is.
    enum Payload: Sendable {
        case json(JSONSchema)
        /// A hosted page (`text/html`).
        case html
        /// Prometheus text.
        case text
        /// A script (`text/javascript`).
        case script
        /// No body (204).
        case none
    }

    /// A success answer, or a page that is not an error body.
    struct Answer: Sendable {
        var status: Int
        var description: String
        var payload: Payload
        /// Headers it always carries (`Cache-Control: no-store` on answers that hold a token).
        var headers: [String] = []
    }

    /// 200 with a JSON body.
    static func ok(_ description: String, _ schema: JSONSchema, headers: [String] = []) -> Answer {
        Answer(status: 200, description: description, payload: .json(schema), headers: headers)
    }

    /// 201 with a JSON body.
    static func created(_ description: String, _ schema: JSONSchema, headers: [String] = []) -> Answer {
        Answer(status: 201, description: description, payload: .json(schema), headers: headers)
    }

    /// 204, no body.
    static func done(_ description: String) -> Answer { Answer(status: 204, description: description, payload: .none) }

    /// A credential a handler proves itself, where the table's row says `none`.
    enum Credential: String, Sendable, CaseIterable {
        case accessToken, refreshToken, apiKey, clientBasic, metricsToken
    }

    var summary: String
    var query: [(name: String, schema: JSONSchema, description: String)] = []
    var body: Body? = nil
    /// Whether a request without a body is refused (the hosted reset form reads a missing one as empty).
    var bodyRequired = true
    var answers: [Answer]
    /// The App Services `error_code` names it may answer with, beyond those every route may
    /// (``everyRoute``), those of its bearer and those of its `{app}` parameter; each name's
    /// status is the server's own table's (``ErrorMapping``).
    var errors: [String] = []
    /// The RFC 6749 §5.2 `error` codes it may answer with (the OAuth endpoints).
    var oauthErrors: [String] = []
    /// Statuses answered with a hosted page instead of an error body (the reset form, a used link).
    var pages: [Int] = []
    /// The credentials it takes, where the table's bearer step does not say it all (it applies
    /// none, or the handler is stricter): alternatives, an empty one meaning that the route may
    /// be called without any. `nil`: as the table's bearer says.
    var credentials: [[Credential]]? = nil
    /// The names any request may be answered with before its handler runs: a body late (408) or
    /// too large (413), and 503 when the server is at `max_in_flight` or the store is down (not
    /// `/metrics`, which counts toward neither).
    var everyRoute: [String] = ["RequestTimeout", "RequestTooLarge", "ServiceUnavailable"]

    /// The key of a route's shape.
    static func key(_ method: String, _ path: String) -> String { method + " " + path }

    /// Every route's shape.
    static let all: [String: RouteShape] = [service, appServices, accounts, oauth, oidcAuthorize, mfa, passkeys, webSignIn, oidc].reduce(into: [:]) {
        all, group in
        all.merge(group) { _, _ in preconditionFailure("two shapes for one route") }
    }
}
