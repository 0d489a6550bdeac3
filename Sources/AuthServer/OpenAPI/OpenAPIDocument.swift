import Foundation
import OpenAPIKit

/// The server's OpenAPI 3.1 document (`GET /openapi.json`), built from the route table's rows
/// and the routes' shapes (``RouteShape/all``): every route, its parameters, body and answers,
/// error bodies included.
enum OpenAPIDocument {
    /// The routes of `routes` that have no shape, and the shapes that have no route, as
    /// `"METHOD path"` keys: a route must be documented, and only routes that exist.
    static func undocumented(_ routes: [RouteDescription]) -> (routes: [String], shapes: [String]) {
        let keys = Set(routes.map { RouteShape.key($0.method.rawValue, $0.path) })
        return (keys.subtracting(RouteShape.all.keys).sorted(), Set(RouteShape.all.keys).subtracting(keys).sorted())
    }

    /// The document of `routes` as `config` serves them: its `public_url` is the server, its app
    /// ids and providers the values of the `{app}` and `{provider}` parameters.
    static func make(_ routes: [RouteDescription], config: ServerConfig) -> OpenAPI.Document {
        var items: [String: OpenAPI.PathItem] = [:]
        var order: [String] = []
        for route in routes {
            guard let method = OpenAPI.HttpMethod(rawValue: route.method.rawValue) else { continue }
            let path = route.path.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{" + $0.dropFirst() + "}" : String($0) }.joined(separator: "/")
            if items[path] == nil { order.append(path) }
            let shape = RouteShape.all[RouteShape.key(route.method.rawValue, route.path)]
            // A route without a shape is still listed (a test fails for it): its answers unknown.
            let op = shape.map { operation(route, $0, config: config) } ?? OpenAPI.Operation(operationId: route.handler, responses: [:])
            items[path, default: OpenAPI.PathItem()].set(operation: op, for: method)
        }
        var paths = OpenAPI.PathItem.Map()
        for path in order { paths[OpenAPI.Path(rawValue: path)] = .b(items[path]!) }
        let servers = URL(string: config.publicURL).map { [OpenAPI.Server(url: $0, description: "public_url")] } ?? []
        return OpenAPI.Document(
            openAPIVersion: .v3_1_1,
            info: OpenAPI.Document.Info(
                title: "tokentool serve",
                description: "The sign-in server: the App Services client protocol, OAuth 2.0 endpoints and the hosted account pages. "
                    + "Errors are App Services bodies {\"error\",\"error_code\",\"link\"}, or on the OAuth endpoints RFC 6749 §5.2 bodies.",
                version: "1"),
            servers: servers, paths: paths, components: OpenAPI.Components(securitySchemes: securitySchemes))
    }

    /// The document as `/openapi.json` serves it: JSON, keys sorted.
    static func encode(_ document: OpenAPI.Document) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(document))
    }

    private static func operation(_ route: RouteDescription, _ shape: RouteShape, config: ServerConfig) -> OpenAPI.Operation {
        var parameters: OpenAPI.Parameter.Array = []
        for name in route.path.split(separator: "/").filter({ $0.hasPrefix(":") }).map({ String($0.dropFirst()) }) {
            parameters.append(.b(.path(name: name, schema: pathSchema(name, config: config))))
        }
        for q in shape.query {
            parameters.append(.b(.query(name: q.name, schema: q.schema.optionalSchemaObject(), description: q.description)))
        }
        // The shape's word wins: it says what the handler checks beyond the table's step (introspection
        // takes Basic only, where the table's client step also admits a public client).
        let credentials = shape.credentials ?? credentials(of: route.bearer)
        return OpenAPI.Operation(
            summary: shape.summary, operationId: route.handler, parameters: parameters, requestBody: requestBody(shape),
            responses: OpenAPIAnswers.responses(route, shape), security: credentials.map(securityRequirements) ?? [])
    }

    private static func pathSchema(_ name: String, config: ServerConfig) -> JSONSchema {
        switch name {
        case "app":
            return OpenAPISchemas.oneOf(config.apps.keys.sorted(), description: "an app id of this server")
        case "provider":
            let names = Set(config.apps.values.flatMap(\.providers.keys)).sorted()
            return OpenAPISchemas.oneOf(names, description: "a provider of the app")
        default:
            return .string
        }
    }

    private static func requestBody(_ shape: RouteShape) -> OpenAPI.Request? {
        switch shape.body {
        case .json(let schema)?: OpenAPI.Request(content: [.json: .b(OpenAPI.Content(schema: schema))], required: shape.bodyRequired)
        case .form(let schema)?: OpenAPI.Request(content: [.form: .b(OpenAPI.Content(schema: schema))], required: shape.bodyRequired)
        case nil: nil
        }
    }

    /// The credentials the table's bearer step takes.
    private static func credentials(of bearer: RouteDescription.Bearer) -> [[RouteShape.Credential]]? {
        switch bearer {
        case .none: nil
        case .access: [[.accessToken]]
        case .optionalAccess: [[.accessToken], []]
        case .refresh: [[.refreshToken]]
        case .apiKey: [[.apiKey]]
        case .clientCredentials: [[.clientBasic], []]
        case .resource: [[.accessToken], []]
        }
    }

    private static func securityRequirements(_ alternatives: [[RouteShape.Credential]]) -> [OpenAPI.SecurityRequirement] {
        alternatives.map { all in Dictionary(uniqueKeysWithValues: all.map { (JSONReference.component(named: $0.rawValue), [String]()) }) }
    }

    /// One scheme per credential.
    static let securitySchemes: OpenAPI.ComponentReferenceDictionary<OpenAPI.SecurityScheme> = {
        var out = OpenAPI.ComponentReferenceDictionary<OpenAPI.SecurityScheme>()
        for credential in RouteShape.Credential.allCases {
            let scheme: OpenAPI.SecurityScheme
            switch credential {
            case .accessToken:
                scheme = .http(scheme: "bearer", bearerFormat: "JWT", description: "an access token (RFC 9068 JWT), live-checked")
            case .refreshToken:
                scheme = .http(scheme: "bearer", description: "a refresh token: only the current one of a live session")
            case .apiKey:
                scheme = .http(scheme: "bearer", description: "an API key")
            case .clientBasic:
                scheme = .http(scheme: "basic", description: "a clients entry's id and secret (RFC 6749 §2.3.1)")
            case .metricsToken:
                scheme = .http(scheme: "bearer", description: "the token of metrics_token_file")
            }
            out[OpenAPI.ComponentKey(rawValue: credential.rawValue)!] = .b(scheme)
        }
        return out
    }()
}
