import OpenAPIKit

extension RouteShape {
    /// Second factors: the bearer's TOTP factor and recovery codes, and the second step of an
    /// email/password sign-in.
    static let mfa: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let base = RouteTable.base
        let noStore = ["Cache-Control"]
        let body = ["BadRequest", "MissingParameter", "InvalidParameter"]
        // Enrolment changes: a sign-in in the last 10 minutes; a code check may be locked.
        let change = body + ["ReauthenticationRequired", "TooManyRequests"]
        let code = S.object(["code": .string(description: "a TOTP code (6 digits) or, where taken, a recovery code")])
        let recoveryCodes = S.object(
            ["recovery_codes": .array(items: .string(pattern: "^[0-9a-z]{5}-[0-9a-z]{5}$"))], description: "10 codes, shown only here")
        let newCodes = ok("the recovery codes", recoveryCodes, headers: noStore)
        // A change checked by the body's `code`.
        func guarded(_ summary: String, _ answer: Answer) -> RouteShape {
            RouteShape(summary: summary, body: .json(code), answers: [answer], errors: change)
        }
        return [
            key("GET", base + "/auth/mfa"): RouteShape(
                summary: "The user's second factors",
                answers: [
                    ok(
                        "the factors",
                        S.object(["totp": .boolean, "passkeys": .integer(minimum: (0, exclusive: false)), "recovery_codes_left": .integer]),
                        headers: noStore)
                ]),
            key("POST", base + "/auth/mfa/totp"): RouteShape(
                summary: "Start a TOTP enrolment (pending until confirmed; replaces a pending one)",
                answers: [ok("the secret, shown only here", S.object(["secret": .string, "otpauth_uri": .string]), headers: noStore)],
                errors: change),
            key("POST", base + "/auth/mfa/totp/confirm"): guarded("Confirm the pending TOTP enrolment with a code: TOTP is on", newCodes),
            key("DELETE", base + "/auth/mfa/totp"): guarded(
                "Turn TOTP off (a TOTP or recovery code); the recovery codes go with it", done("TOTP is off")),
            key("POST", base + "/auth/mfa/recovery_codes"): guarded(
                "A new set of recovery codes (a TOTP or recovery code); the old set dies", newCodes),
            key("POST", base + "/app/:app/auth/providers/local-userpass/mfa"): RouteShape(
                summary: "The second step of an email/password sign-in answered 401 MFARequired",
                body: .json(secondStepBody),
                answers: [ok("signed in", S.login, headers: noStore)],
                errors: body + ["AuthError", "UserDisabled", "UserNotFound", "AuthProviderNotFound", "TooManyRequests"]),
        ]
    }()

    /// The App Services second step's body: the `mfa_token`, and one factor's members
    /// (``SecondFactor/bodyMembers``, each factor's own).
    static var secondStepBody: JSONSchema {
        var properties = OrderedDictionary<String, JSONSchema>()
        properties["mfa_token"] = JSONSchema.string(description: "the MFARequired answer's").requiredSchemaObject()
        for member in SecondFactors.standard.flatMap({ $0.bodyMembers }) {
            properties[member.name] = member.schema(description: member.note ?? member.name).optionalSchemaObject()
        }
        return .object(description: "one second factor's proof", properties: properties)
    }
}

extension LoginBody.Member {
    /// The member's schema in the document: a string, or an object of any members.
    func schema(description: String) -> JSONSchema {
        kind == .object ? OpenAPISchemas.object([:], description: description) : .string(description: description)
    }
}
