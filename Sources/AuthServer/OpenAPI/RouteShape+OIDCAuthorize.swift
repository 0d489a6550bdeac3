import OpenAPIKit
import OIDCProvider

extension RouteShape {
    /// The OpenID Provider's authorization endpoint and its hosted pages (docs/oidc.md): answers
    /// are redirects and pages, never error bodies.
    static let oidcAuthorize: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let request: [(name: String, schema: JSONSchema, description: String)] = [
            ("response_type", S.oneOf(["code"]), "code (the authorization code flow)"),
            ("client_id", .string, "a clients entry with redirect_uris"),
            ("redirect_uri", .string, "one of the client's redirect_uris (may be left out when it has one)"),
            ("scope", .string, "space-separated: openid, profile, email, offline_access"),
            ("state", .string, "returned as sent"), ("nonce", .string, "put in the ID token"),
            ("code_challenge", .string, "PKCE S256 challenge"), ("code_challenge_method", S.oneOf(["S256"]), "S256 only"),
            ("prompt", .string, "none, login or consent"), ("max_age", .string, "seconds since the last sign-in"),
            ("login_hint", .string, "prefills the email"), ("id_token_hint", .string, "an ID token naming who should be signed in"),
        ]
        var properties = OrderedDictionary<String, JSONSchema>()
        for q in request { properties[q.name] = q.schema.optionalSchemaObject() }
        let form = JSONSchema.object(properties: properties)
        let redirect = Answer(
            status: 302, description: "to the client's redirect_uri with code or error, state and iss; or to the login or consent page",
            payload: .none, headers: ["Location"])
        let flow: [(name: String, schema: JSONSchema, description: String)] = [("flow", .string, "the flow's handle")]
        let after = Answer(
            status: 303, description: "to the client's redirect_uri with code (or error=access_denied), or to the consent or login page",
            payload: .none, headers: ["Location"])
        let page = Answer(status: 200, description: "the page", payload: .html)
        return [
            // 429: a flow to store past login_per_address (the page, with Retry-After).
            key("GET", "/oauth/authorize"): RouteShape(
                summary: "The authorization endpoint (OIDC Core §3.1.2)", query: request, answers: [redirect], pages: [400, 429]),
            key("POST", "/oauth/authorize"): RouteShape(
                summary: "The authorization endpoint, the request as a form", body: .form(form), bodyRequired: false, answers: [redirect],
                pages: [400, 429]),
            key("GET", OIDCAuthorizeRoutes.loginPath): RouteShape(
                summary: "The hosted login page of a flow", query: flow, answers: [page], pages: [400]),
            key("POST", OIDCAuthorizeRoutes.loginPath): RouteShape(
                summary: "The login form's post: email and password; the second step's code or passkey; a passkey sign-in",
                query: flow,
                body: .form(
                    S.object(
                        [:],
                        optional: [
                            "email": .string, "password": .string, OIDCPages.csrfField: .string, OIDCPages.secondStepField: .string,
                            OIDCPages.codeField: .string, OIDCPages.passkeyField: .string(description: "a WebAuthn get() response as JSON"),
                        ])),
                bodyRequired: false, answers: [page, after], pages: [400, 401, 403, 429, 503]),
            key("POST", OIDCAuthorizeRoutes.passkeyOptionsPath): RouteShape(
                summary: "The options of a passkey button of the login page (a sign-in) or of the second page (with its mfa_token)",
                query: flow,
                body: .form(S.object([:], optional: [OIDCPages.csrfField: .string, OIDCPages.secondStepField: .string])),
                bodyRequired: false,
                answers: [ok("the request options", S.object(["publicKey": S.object(["challenge": .string])]), headers: ["Cache-Control"])],
                errors: ["AuthError", "AuthProviderNotFound", "TooManyRequests"]),
            key("GET", PasskeyScript.path): RouteShape(
                summary: "The hosted pages' passkey script", answers: [Answer(status: 200, description: "the script", payload: .script)],
                everyRoute: ["ServiceUnavailable"]),
            key("GET", OIDCAuthorizeRoutes.loginPath + "/:provider"): RouteShape(
                summary: "A web sign-in button of the login page (google, apple, facebook): to the provider, back at its callback",
                query: flow,
                answers: [
                    Answer(status: 302, description: "to the provider's sign-in page", payload: .none, headers: ["Location", "Cache-Control"])
                ],
                pages: [400, 404, 429, 503]),
            key("GET", OIDCAuthorizeRoutes.consentPath): RouteShape(
                summary: "The hosted consent page of a flow", query: flow,
                answers: [page, Answer(status: 302, description: "to the login page: nobody is signed in", payload: .none, headers: ["Location"])],
                pages: [400]),
            key("POST", OIDCAuthorizeRoutes.consentPath): RouteShape(
                summary: "The consent form's post: allow or deny",
                query: flow,
                body: .form(
                    S.object([:], optional: [OIDCPages.decisionField: S.oneOf([OIDCPages.allow, OIDCPages.deny]), OIDCPages.csrfField: .string])),
                bodyRequired: false, answers: [after], pages: [400, 403]),
        ]
    }()
}
