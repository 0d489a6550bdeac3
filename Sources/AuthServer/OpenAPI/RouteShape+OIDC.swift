import OpenAPIKit

extension RouteShape {
    /// The OpenID Provider's token side: userinfo and end session (the token endpoint's grants and
    /// discovery are in ``oauth`` and ``service``).
    static let oidc: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let bearerError = S.object(["error": .string, "error_description": .string])
        let userinfoAnswers = [
            ok("the user's sub and the claims of the token's scopes", S.object(["sub": .string]), headers: ["Cache-Control"]),
            Answer(status: 400, description: "the token sent twice, or a malformed body", payload: .json(bearerError)),
            Answer(
                status: 401, description: "no access token, or a bad, expired or ended one (invalid_token)", payload: .json(bearerError),
                headers: ["WWW-Authenticate"]),
            Answer(status: 403, description: "a token without the openid scope (insufficient_scope)", payload: .json(bearerError)),
        ]
        let logoutParameters: [(name: String, schema: JSONSchema, description: String)] = [
            ("id_token_hint", .string, "an ID token this server issued to the client (expired ones too)"),
            ("client_id", .string, "the relying party"),
            ("post_logout_redirect_uri", .string, "one of the client's post_logout_redirect_uris"),
            ("state", .string, "sent back to post_logout_redirect_uri"),
        ]
        let logoutAnswers = [
            Answer(status: 200, description: "the signed-out page", payload: .html),
            Answer(status: 302, description: "to post_logout_redirect_uri?state=…", payload: .none, headers: ["Location"]),
        ]
        let optionalForm = S.object(
            [:],
            optional: ["id_token_hint": .string, "client_id": .string, "post_logout_redirect_uri": .string, "state": .string])
        return [
            key("GET", "/oauth/userinfo"): RouteShape(
                summary: "OpenID Connect userinfo (OIDC Core §5.3): the access token as Authorization: Bearer",
                answers: userinfoAnswers, credentials: [[.accessToken], []]),
            key("POST", "/oauth/userinfo"): RouteShape(
                summary: "OpenID Connect userinfo: the access token as Authorization: Bearer or the access_token form member",
                body: .form(S.object([:], optional: ["access_token": .string])), bodyRequired: false,
                answers: userinfoAnswers, credentials: [[.accessToken], []]),
            key("GET", "/oauth/logout"): RouteShape(
                summary: "RP-initiated logout: ends the browser's OP session and the sessions issued through it",
                query: logoutParameters, answers: logoutAnswers, pages: [400]),
            key("POST", "/oauth/logout"): RouteShape(
                summary: "RP-initiated logout, the parameters as a form",
                body: .form(optionalForm), bodyRequired: false, answers: logoutAnswers, pages: [400]),
        ]
    }()
}
