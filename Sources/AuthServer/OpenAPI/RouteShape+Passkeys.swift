import OpenAPIKit

extension RouteShape {
    /// Passkeys: the bearer's registration, listing and deletion; the passkey sign-in's options
    /// and login; the options of a passkey as a sign-in's second step.
    static let passkeys: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let base = RouteTable.base
        let noStore = ["Cache-Control"]
        let body = ["BadRequest", "MissingParameter", "InvalidParameter"]
        let id = JSONSchema.string(description: "the credential id, base64url")
        let time = JSONSchema.string(format: .dateTime)
        let credential = S.object(
            ["id": id, "type": S.oneOf(["public-key"]), "response": S.object([:])],
            description: "a WebAuthn response serialized as JSON (Level 3 toJSON()), binary members as base64url")
        let options = S.object(["publicKey": S.object(["challenge": .string(description: "base64url")])], description: "WebAuthn options JSON")
        let passkey = S.object(["id": id, "name": .string, "created_at": time])
        let login = S.object(["challenge_id": .string(description: "the options' challenge_id"), "credential": credential])
        return [
            key("POST", base + "/auth/passkeys/registration/options"): RouteShape(
                summary: "Options for navigator.credentials.create(): a single-use challenge (5 minutes), the user's passkeys excluded",
                bodyRequired: false, answers: [ok("the creation options", options, headers: noStore)], errors: ["ReauthenticationRequired"]),
            key("POST", base + "/auth/passkeys/registration"): RouteShape(
                summary: "Register a passkey: the create() response over the options' challenge",
                body: .json(S.object(["credential": credential], optional: ["name": .string(maxLength: 64)])),
                answers: [created("the passkey", passkey, headers: noStore)], errors: body + ["ReauthenticationRequired"]),
            key("GET", base + "/auth/passkeys"): RouteShape(
                summary: "The user's passkeys",
                answers: [
                    ok(
                        "the passkeys, oldest first",
                        .array(
                            items: S.object([
                                "id": id, "name": .string, "created_at": time, "last_used_at": .string(format: .dateTime, nullable: true),
                            ])), headers: noStore)
                ]),
            key("DELETE", base + "/auth/passkeys/:id"): RouteShape(
                summary: "Delete one of the user's passkeys", answers: [done("deleted")], errors: ["ReauthenticationRequired", "NotFound"]),
            key("POST", base + "/app/:app/auth/providers/passkey/login/options"): RouteShape(
                summary: "Options for navigator.credentials.get() of a passkey sign-in (discoverable credentials) and their challenge_id",
                body: .json(S.object([:])),
                answers: [
                    ok("the request options", S.object(["publicKey": S.object(["challenge": .string]), "challenge_id": .string]), headers: noStore)
                ],
                errors: ["BadRequest", "AuthProviderNotFound", "TooManyRequests"]),
            key("POST", base + "/app/:app/auth/providers/passkey/login"): RouteShape(
                summary: "Sign in with a passkey: the get() response over the options' challenge",
                body: .json(login), answers: [ok("signed in", S.login, headers: noStore)],
                errors: body + ["AuthError", "UserDisabled", "UserNotFound", "AuthProviderNotFound", "TooManyRequests"]),
            key("POST", base + "/app/:app/auth/providers/local-userpass/mfa/passkey/options"): RouteShape(
                summary: "Options for a passkey as the second step of the sign-in that answered MFARequired",
                body: .json(S.object(["mfa_token": .string(description: "the MFARequired answer's")])),
                answers: [ok("the request options, the user's passkeys allowed", options, headers: noStore)],
                errors: body + ["AuthError", "AuthProviderNotFound", "TooManyRequests"]),
        ]
    }()
}
