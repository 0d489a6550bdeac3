import HTTPTypes

/// What the route table says of one route: enough to serve it (the bearer and the throttles the
/// table applies before the handler runs) and to document it (the OpenAPI document is built from
/// these rows).
struct RouteDescription: Sendable, Hashable {
    /// The credential a route takes, checked by the table before its handler runs.
    enum Bearer: String, Sendable, Hashable, CaseIterable {
        case none
        case access
        /// An access token when the request has an `Authorization` header (a login that may link).
        case optionalAccess = "optional_access"
        case refresh
        case apiKey = "api_key"
        /// OAuth client authentication (HTTP Basic or the body's `client_id`/`client_secret`).
        case clientCredentials = "client_credentials"
        /// An access token of any client of an app, proved by the one resource check
        /// (``RouteHandler/resource(_:_:)``), refused in RFC 6750's shape.
        case resource
    }

    let method: HTTPRequest.Method
    /// The path with `:name` parameters, e.g. `/api/client/v2.0/app/:app/auth/session`.
    let path: String
    let bearer: Bearer
    /// Every limit the route counts, by config name (e.g. `login_per_address`), in the order they
    /// are counted: the table's (per client address) and those its handler counts (an email's, a token's).
    let throttles: [String]
    /// The handler's name, the document's `operationId`.
    let handler: String
}
