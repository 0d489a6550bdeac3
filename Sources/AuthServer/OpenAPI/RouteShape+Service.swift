import OpenAPIKit

extension RouteShape {
    /// The operator's routes, the published documents and the hosted account pages.
    static let service: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let tokenQuery: [(name: String, schema: JSONSchema, description: String)] = [
            ("token", .string, "the mailed link's token"), ("tokenId", .string, "the mailed link's token id"),
        ]
        let cached = ["Cache-Control"]
        return [
            key("GET", "/healthz"): RouteShape(
                summary: "Health: 200 once the store answers",
                answers: [ok("the store answers", S.object(["status": S.oneOf(["ok"])]))]),
            key("GET", "/metrics"): RouteShape(
                summary: "Prometheus metrics, for the bearer of metrics_token_file's token (else 404, as an unknown path)",
                answers: [Answer(status: 200, description: "the Prometheus text exposition", payload: .text)],
                errors: ["NotFound"], credentials: [[.metricsToken], []], everyRoute: ["RequestTimeout", "RequestTooLarge"]),
            key("GET", "/openapi.json"): RouteShape(
                summary: "This document: every route of the server",
                answers: [ok("the OpenAPI 3.1 document", .object)]),
            key("GET", "/.well-known/jwks.json"): RouteShape(
                summary: "The key ring's public keys (RFC 7517)",
                answers: [ok("the JWKS", S.jwks, headers: cached)]),
            key("GET", "/.well-known/oauth-authorization-server"): RouteShape(
                summary: "Authorization server metadata (RFC 8414)",
                answers: [ok("the metadata", S.metadata)]),
            key("GET", "/.well-known/openid-configuration"): RouteShape(
                summary: "The same metadata at the OpenID Connect Discovery path",
                answers: [ok("the metadata", S.metadata)]),
            key("GET", "/app/:app/confirm"): RouteShape(
                summary: "The mailed confirmation link: confirms on load and says so",
                query: tokenQuery,
                answers: [Answer(status: 200, description: "the email address is confirmed", payload: .html)],
                errors: ["AuthProviderNotFound"], pages: [400]),
            key("GET", "/app/:app/reset"): RouteShape(
                summary: "The mailed reset link: the form for a new password",
                query: tokenQuery,
                answers: [Answer(status: 200, description: "the form", payload: .html)],
                errors: ["AuthProviderNotFound"], pages: [400]),
            key("POST", "/app/:app/reset"): RouteShape(
                summary: "The reset form's post: sets the new password",
                body: .form(
                    S.object(
                        [:],
                        optional: [
                            "token": .string, "tokenId": .string, "password": .string(description: "the new password"),
                            "confirm": .string(description: "the new password again"),
                        ])),
                bodyRequired: false,
                answers: [Answer(status: 200, description: "the password was changed", payload: .html)],
                errors: ["AuthProviderNotFound"], pages: [400, 429, 503]),
        ]
    }()
}
