import OpenAPIKit

extension RouteShape {
    /// The `local-userpass` routes (docs/accounts.md): register, confirm, reset, and their
    /// custom-function forms. Each answers alike for a registered email and an unknown one.
    static let accounts: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let path = RouteTable.base + "/app/:app/auth/providers/local-userpass"
        let body = ["BadRequest", "MissingParameter", "InvalidParameter", "AuthProviderNotFound"]
        let accepted = done("done (or, for an unknown email, nothing to do)")
        let email = JSONSchema.string(format: .email, description: "the account's email")
        // The custom function's answer decides: refused (401), failed (502); 400 without one.
        let function = ["AuthError", "FunctionExecutionError", "TooManyRequests"]
        return [
            key("POST", path + "/register"): RouteShape(
                summary: "Register an email and password (the first login creates the user)",
                body: .json(S.object(["email": email, "password": .string])),
                answers: [created("registered, or the address was taken (its owner is mailed)", S.empty)],
                errors: body + ["InvalidPassword", "TooManyRequests"]),
            key("POST", path + "/confirm"): RouteShape(
                summary: "Confirm the email with the mailed token",
                body: .json(S.object(["token": .string, "tokenId": .string])),
                answers: [done("confirmed")],
                errors: body + ["UserpassTokenInvalid"]),
            key("POST", path + "/confirm/send"): RouteShape(
                summary: "Mail a new confirmation link", body: .json(S.object(["email": email])), answers: [accepted],
                errors: body + ["TooManyRequests"]),
            key("POST", path + "/reset/send"): RouteShape(
                summary: "Mail a password reset link", body: .json(S.object(["email": email])), answers: [accepted],
                errors: body + ["TooManyRequests"]),
            key("POST", path + "/reset"): RouteShape(
                summary: "Set a new password with the mailed token; ends every session of the user",
                body: .json(S.object(["token": .string, "tokenId": .string, "password": .string])),
                answers: [done("the password was changed")],
                errors: body + ["InvalidPassword", "UserpassTokenInvalid", "TooManyRequests"]),
            key("POST", path + "/confirm/call"): RouteShape(
                summary: "Confirm through the app's custom function instead of a mail",
                body: .json(S.object(["email": email], optional: ["password": .string])), answers: [accepted], errors: body + function),
            key("POST", path + "/reset/call"): RouteShape(
                summary: "Reset through the app's custom function instead of a mail",
                body: .json(
                    S.object(
                        ["email": email, "password": .string(description: "the new password")],
                        optional: ["arguments": .array(nullable: true, description: "handed to the function")])),
                answers: [accepted], errors: body + function + ["InvalidPassword"]),
        ]
    }()

    /// The OAuth 2.0 endpoints (docs/oauth.md): form bodies, RFC 6749 §5.2 errors.
    static let oauth: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let noStore = ["Cache-Control"]
        let client = ["invalid_request", "invalid_client"]
        return [
            key("POST", "/oauth/token"): RouteShape(
                summary: "The refresh grant (RFC 6749 §6), and for OpenID Connect clients the authorization code grant",
                body: .form(
                    S.object(
                        ["grant_type": S.oneOf(OAuthGrants.standard.map { $0.grantType })],
                        optional: [
                            "refresh_token": .string, "code": .string, "redirect_uri": .string, "code_verifier": .string,
                            "client_id": .string(description: "a public client: the app id or the OpenID Connect client id"),
                            "client_secret": .string(description: "an OpenID Connect client registered for client_secret_post"),
                        ])),
                answers: [ok("a new access token (with id_token and scope for an OpenID Connect client)", S.tokenAnswer, headers: noStore)],
                oauthErrors: client + ["invalid_grant", "unauthorized_client", "unsupported_grant_type"],
                credentials: [[.clientBasic], []]),
            key("POST", "/oauth/introspect"): RouteShape(
                summary: "Token introspection (RFC 7662), for a clients entry",
                body: .form(S.object(["token": .string], optional: ["token_type_hint": .string])),
                answers: [
                    ok("what the token is, or {\"active\":false}", S.introspection, headers: noStore)
                ],
                oauthErrors: client + ["invalid_grant", "unauthorized_client"], credentials: [[.clientBasic]]),
            key("POST", "/oauth/revoke"): RouteShape(
                summary: "Token revocation (RFC 7009): a refresh or access token ends its session",
                body: .form(S.object(["token": .string], optional: ["token_type_hint": .string, "client_id": .string])),
                answers: [ok("revoked, or nothing to revoke", S.empty, headers: noStore)],
                oauthErrors: client + ["invalid_grant", "unauthorized_client"], credentials: [[.clientBasic], []]),
        ]
    }()
}
