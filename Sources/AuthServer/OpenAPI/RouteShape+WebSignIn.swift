import OpenAPIKit

extension RouteShape {
    /// Web sign-in (docs/oidc.md, "Web sign-in"): the App Services redirect flow's start and the
    /// providers' callback. Each answers a browser: a redirect, or the 400 page.
    static let webSignIn: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let redirect = ["Location", "Cache-Control"]
        let answer: KeyValuePairs<String, JSONSchema> = [
            "state": .string(description: "the server's own state, sent to the provider"), "code": .string(description: "the authorization code"),
            "error": .string(description: "the provider's refusal"), "error_description": .string, "error_reason": .string,
            "user": .string(description: "Apple, first sign-in: the name and email as JSON"),
        ]
        let callback = RouteShape(
            summary:
                "The provider's answer (Google, Apple, Facebook): ends on the caller's path (realm-web's redirect URL, the hosted login page's flow), or the page for an unknown, used or expired state",
            query: answer.map { ($0.key, $0.value, "") },
            answers: [
                Answer(status: 302, description: "back to the caller: #_baas_ua=… or #_baas_error=…", payload: .none, headers: redirect),
                Answer(
                    status: 303, description: "the hosted login page's caller: to the consent page, or to the client's redirect_uri with code",
                    payload: .none, headers: ["Location", "Cache-Control"]),
                Answer(status: 200, description: "the hosted login page's caller: its login page again, with the refusal", payload: .html),
            ],
            pages: [400])
        var posted = callback
        posted.summary = "The provider's answer as a form post (Apple's response_mode=form_post)"
        posted.query = []
        posted.body = .form(S.object([:], optional: answer))
        posted.bodyRequired = false
        return [
            key("GET", RouteTable.base + "/app/:app/auth/providers/:provider/login"): RouteShape(
                summary:
                    "Web sign-in with Google, Apple or Facebook for realm-web: to the provider, then back to redirect; with link=true and the user's access token, a link through the hosted confirmation page",
                query: [
                    ("redirect", .string, "where to come back: one of the app's redirect_uris, exactly"),
                    ("state", .string, "the caller's state, given back in #_baas_state"),
                    ("device", .string, "realm-web's device information: base64 of a JSON object"),
                    ("link", S.oneOf(["true"]), "link the provider's identity to the bearer's user (needs the access token and providerRedirectHeader=true)"),
                    ("providerRedirectHeader", S.oneOf(["true"]), "answer 200 with X-BAAS-Location instead of redirecting"),
                ],
                answers: [
                    Answer(status: 302, description: "to the provider's sign-in, or back with #_baas_error", payload: .none, headers: redirect),
                    Answer(
                        status: 200,
                        description:
                            "providerRedirectHeader=true: X-BAAS-Location names where the window goes (with link=true, the confirmation page PUBLIC_URL/oauth/link?flow=…)",
                        payload: .none, headers: ["X-BAAS-Location", "Cache-Control"]),
                ],
                errors: ["TooManyRequests", "InvalidParameter", "AuthProviderNotFound"], pages: [400]),
            key("GET", WebSignInRoutes.linkPath): RouteShape(
                summary: "The hosted page of a link through the redirect flow: names the account the provider's identity will join",
                query: [("flow", .string, "the link's handle, from X-BAAS-Location")],
                answers: [Answer(status: 200, description: "the page, its button posting to the same URL", payload: .html)], pages: [400]),
            key("POST", WebSignInRoutes.linkPath): RouteShape(
                summary: "The link page's button: to the provider's sign-in, bound to this browser",
                query: [("flow", .string, "the link's handle")], body: .form(S.object([:], optional: [OIDCPages.csrfField: .string])),
                bodyRequired: false,
                answers: [Answer(status: 302, description: "to the provider's sign-in", payload: .none, headers: redirect)], pages: [400]),
            key("GET", "/oauth/callback/:provider"): callback,
            key("POST", "/oauth/callback/:provider"): posted,
        ]
    }()
}
