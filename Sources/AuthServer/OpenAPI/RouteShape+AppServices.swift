import OpenAPIKit

extension RouteShape {
    /// The App Services client protocol: location, login, the session, the profile, API keys.
    static let appServices: [String: RouteShape] = {
        typealias S = OpenAPISchemas
        let base = RouteTable.base
        let noStore = ["Cache-Control"]
        let body = ["BadRequest", "MissingParameter", "InvalidParameter"]
        // The refresh bearer's user is looked up with the keys (gone: 404; disabled: 403).
        let keyOwner = ["UserNotFound", "UserDisabled"]
        let device = S.object(
            [:],
            optional: [
                "deviceId": .any(of: [.string(pattern: "^([0-9a-fA-F]{24})?$"), S.object(["$oid": .string(pattern: "^[0-9a-fA-F]{24}$")])]),
                "platform": .string, "platformVersion": .string, "sdkVersion": .string, "deviceName": .string, "appId": .string,
                "appVersion": .string,
            ])
        let loginBody = Self.loginBody(device: device)
        return [
            key("GET", base + "/app/:app/location"): RouteShape(
                summary: "Where the app's clients find the server",
                answers: [ok("the location", S.location)]),
            key("POST", base + "/app/:app/auth/providers/:provider/login"): RouteShape(
                summary: "Sign in with a provider; with ?link=true and an access token, add the identity to its user",
                query: [("link", .string, "true: link the identity to the bearer's user (any other value: a login)")],
                body: .json(loginBody),
                answers: [
                    ok("signed in (a link answers without refresh_token)", S.login, headers: noStore)
                ],
                errors: body + [
                    "AuthError", "MFARequired", "UserDisabled", "UserNotFound", "AuthProviderNotFound", "AccountNameInUse", "TooManyRequests",
                    "FunctionExecutionError",
                ]),
            key("POST", base + "/auth/session"): RouteShape(
                summary: "Refresh: a new access token for the refresh token's session",
                answers: [
                    created("a new access token (and, with refresh_rotation, the next refresh token)", S.refresh, headers: noStore)
                ],
                errors: ["InvalidSession", "UserDisabled"], credentials: [[.refreshToken]]),
            key("DELETE", base + "/auth/session"): RouteShape(
                summary: "Log out: end the refresh token's session (204 also when it has ended or is unknown)",
                answers: [done("the session is over")],
                errors: ["InvalidSession"], credentials: [[.refreshToken]]),
            key("GET", base + "/auth/sessions"): RouteShape(
                summary: "The user's live sessions in the bearer's app",
                answers: [ok("the sessions", S.sessions)]),
            key("DELETE", base + "/auth/sessions/:id"): RouteShape(
                summary: "End one of the user's sessions",
                answers: [done("the session is over")],
                errors: ["NotFound"]),
            key("GET", base + "/auth/profile"): RouteShape(summary: "The user's profile and identities", answers: [ok("the profile", S.profile)]),
            key("DELETE", base + "/auth/delete"): RouteShape(
                summary: "Delete the user, its identities, sessions and API keys",
                answers: [done("the user is gone")],
                errors: ["UserNotFound"]),
            key("POST", base + "/auth/api_keys"): RouteShape(
                summary: "Create an API key (at most 20 per user, names unique)",
                body: .json(S.object(["name": .string(minLength: 1)])),
                answers: [created("the new key, shown only here", S.newAPIKey, headers: noStore)],
                errors: body + keyOwner + ["APIKeyAlreadyExists"]),
            key("GET", base + "/auth/api_keys"): RouteShape(
                summary: "The user's API keys",
                answers: [ok("the keys", .array(items: S.apiKey))],
                errors: keyOwner),
            key("GET", base + "/auth/api_keys/:id"): RouteShape(
                summary: "One of the user's API keys",
                answers: [ok("the key", S.apiKey)],
                errors: keyOwner + ["APIKeyNotFound"]),
            key("DELETE", base + "/auth/api_keys/:id"): RouteShape(
                summary: "Delete an API key and end the sessions it opened",
                answers: [done("the key is gone")],
                errors: keyOwner + ["APIKeyNotFound"]),
            key("PUT", base + "/auth/api_keys/:id/enable"): RouteShape(
                summary: "Enable an API key",
                answers: [done("the key is enabled")],
                errors: keyOwner + ["APIKeyNotFound"]),
            key("PUT", base + "/auth/api_keys/:id/disable"): RouteShape(
                summary: "Disable an API key and end the sessions it opened",
                answers: [done("the key is disabled")],
                errors: keyOwner + ["APIKeyNotFound"]),
        ]
    }()

    /// The login route's body: `options.device`, then the union of every registered method's
    /// members (``LoginMethod/loginBody``), each described by the methods that read it.
    static func loginBody(device: JSONSchema) -> JSONSchema {
        var members: [(name: String, kind: LoginBody.Member.Kind, methods: [String], note: String?)] = []
        var anyObject: [String] = []
        for method in LoginMethodRegistry.standard.methods {
            switch method.loginBody {
            case .anyObject:
                anyObject.append(method.name)
            case .members(let list):
                for m in list {
                    if let i = members.firstIndex(where: { $0.name == m.name }) {
                        members[i].methods.append(method.name)
                    } else {
                        members.append((m.name, m.kind, [method.name], m.note))
                    }
                }
            }
        }
        var properties = OrderedDictionary<String, JSONSchema>()
        properties["options"] = OpenAPISchemas.object([:], optional: ["device": device]).optionalSchemaObject()
        for m in members {
            let description = m.methods.joined(separator: ", ") + (m.note.map { ": " + $0 } ?? "")
            properties[m.name] = LoginBody.Member(m.name, m.kind).schema(description: description).optionalSchemaObject()
        }
        let free = anyObject.map { " (\($0): any JSON object)" }.joined()
        return .object(description: "the provider's credential\(free), Extended JSON accepted", properties: properties)
    }
}
