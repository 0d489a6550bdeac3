import Hummingbird
import JOSE
import Sessions

extension AuthServer {
    /// `POST BASE/app/{app}/auth/providers/{provider}/login[?link=true]`.
    func addLoginRoutes(to routes: RouteTable) {
        routes.onOptionalAccess(.post, RouteTable.base + "/app/:app/auth/providers/:provider/login") { request, context in
            let app = try self.pathApp(context)
            let provider = try context.parameters.require("provider")
            guard app.config.providers[provider] != nil, let providers = self.providers[app.config.id] else {
                throw TokenError(.providerNotFound, "the app has no \(provider.prefix(64)) provider")
            }
            let body = try await RequestJSON.read(request, context: context)
            let device = try Device(body)
            try await self.throttle("login_addr:" + (context.clientAddress ?? ""), self.config.limits.loginPerAddress, context)
            if provider == "anon-user" {
                try await self.throttle("anon_addr:" + (context.clientAddress ?? ""), self.config.limits.anonymousPerAddress, context)
            }
            let link = request.uri.queryParameters.get("link") == "true"
            if link, context.session == nil { throw TokenError(.invalidSession, "linking needs an access token") }
            // An email/password account is joined to the bearer's user by its login itself.
            let credential: LoginProviders.Credential =
                provider == "local-userpass"
                ? .user(try await self.userpassLogin(body, context, linkingTo: link ? context.session?.userID : nil))
                : try await providers.credential(provider, body: body, sessions: app.sessions)

            if link, let session = context.session {
                switch credential {
                case .identity(let identity, let keep):
                    try await app.sessions.link(identity, to: session.userID)
                    if let keep { try await app.sessions.keepProviderToken(keep, provider: identity.provider, subject: identity.subject) }
                case .user: break
                case .apiKey: throw TokenError(.invalidParameter, "an \(provider) credential cannot be linked")
                }
                let access = try await app.sessions.accessToken(forSession: session.sessionID, userID: session.userID)
                return JSONResponse.ok(
                    ["access_token": .string(access), "user_id": .string(session.userID), "device_id": .string(device.id)],
                    noStore: true)
            }

            let tokens: TokenPair
            switch credential {
            case .identity(let identity, let keep):
                tokens = try await app.sessions.signIn(with: identity, clientID: app.config.id, device: device.json).tokens
                if let keep { try await app.sessions.keepProviderToken(keep, provider: identity.provider, subject: identity.subject) }
            case .user(let userID):
                tokens = try await app.sessions.issueTokens(userID: userID, clientID: app.config.id, device: device.json)
            case .apiKey(let userID, let keyID):
                tokens = try await app.sessions.issueTokens(userID: userID, clientID: app.config.id, device: device.json, apiKeyID: keyID)
            }
            return JSONResponse.ok(
                [
                    "access_token": .string(tokens.accessToken), "refresh_token": .string(tokens.refreshToken),
                    "user_id": .string(tokens.userID), "device_id": .string(device.id),
                ], noStore: true)
        }
    }
}

/// `options.device` of a login body: kept with the session; `deviceId` echoed unless all zeros.
struct Device: Sendable {
    let id: String
    let json: String?

    static let members = ["deviceId", "platform", "platformVersion", "sdkVersion", "deviceName", "appId", "appVersion"]

    init(_ body: RequestJSON) throws {
        guard let device = try body.optionalObject("options")?.optionalObject("device") else {
            id = try RandomToken.id()
            json = nil
            return
        }
        var kept = JSONObject()
        for name in Self.members {
            if let v = try device.optionalString(name, maxBytes: 256) { kept[name] = .string(v) }
        }
        let given = kept["deviceId"]?.stringValue ?? ""
        id = given.isEmpty || given.allSatisfy({ $0 == "0" }) ? try RandomToken.id() : given
        kept["deviceId"] = .string(id)
        json = JSONValue.object(kept).jsonString
    }
}
