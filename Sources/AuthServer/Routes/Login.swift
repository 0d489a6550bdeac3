import Foundation
import Hummingbird
import JOSE
import Sessions

/// `POST BASE/app/{app}/auth/providers/{provider}/login[?link=true]`.
struct LoginRoutes: Sendable {
    let server: AuthServer

    /// What a login request is, read and checked before the table counts its limits: a request
    /// for an unknown app or provider, or with a malformed body, is refused uncounted.
    struct Input: Sendable {
        let app: AuthServer.AppRuntime
        let provider: String
        let method: any LoginMethod
        let body: RequestJSON
        let device: Device
        let link: Bool
    }

    func read(_ request: Request, _ context: AuthRequestContext) async throws -> Input {
        try await read(request, context, provider: try context.parameters.require("provider"))
    }

    /// The passkey sign-in's own path (its literal `passkey` segment, beside `…/passkey/login/options`,
    /// is matched before the path's `{provider}`).
    func readPasskey(_ request: Request, _ context: AuthRequestContext) async throws -> Input {
        try await read(request, context, provider: PasskeyLogin.name)
    }

    private func read(_ request: Request, _ context: AuthRequestContext, provider: String) async throws -> Input {
        let app = try server.pathApp(context)
        guard let method = server.loginMethods[app.config.id]?.method(named: provider) else {
            throw TokenError(.providerNotFound, "the app has no \(provider.prefix(64)) provider")
        }
        let body = try await RequestJSON.read(request, context: context)
        let device = try Device(body, unixSeconds: Int64(app.sessions.configuration.clock.now().timeIntervalSince1970))
        return Input(
            app: app, provider: provider, method: method, body: body, device: device,
            link: request.uri.queryParameters.get("link") == "true")
    }

    /// After the table counted `login_per_address` and the method's own limits.
    func login(_ input: Input, _ context: AuthRequestContext) async throws -> Response {
        let (app, provider, method, body, device, link) = (input.app, input.provider, input.method, input.body, input.device, input.link)
        if link, context.session == nil { throw TokenError(.invalidSession, "linking needs an access token") }
        let bearer = link ? context.session : nil
        let proof = try await AppLoginMethods.authenticate(
            method, LoginRequest(body: body, sessions: app.sessions, linkingTo: bearer?.userID, clientAddress: context.clientAddress))

        if let session = bearer {
            let linked = try await Authentication.link(proof, method: type(of: method), to: session.userID, sessions: app.sessions)
            let access = try await server.continueSession(session, after: linked, app: app)
            // The bearer's session goes on, on its own device.
            let deviceID = try await app.sessions.session(id: session.sessionID)?.deviceID ?? device.id
            return JSONResponse.ok(
                ["access_token": .string(access), "user_id": .string(session.userID), "device_id": .string(deviceID)],
                noStore: true)
        }
        let authentication = try await Authentication.signIn(proof, method: provider, sessions: app.sessions)
        if type(of: method).capabilities.contains(.secondStep) {
            try await server.requireNoSecondFactor(authentication, app: app, device: device)
        }
        return Self.answer(try await server.issueSession(authentication, app: app, device: device), device: device)
    }

    /// A login's answer (also the second step's, Routes/MFALogin.swift).
    static func answer(_ tokens: TokenPair, device: Device) -> Response {
        JSONResponse.ok(
            [
                "access_token": .string(tokens.accessToken), "refresh_token": .string(tokens.refreshToken),
                "user_id": .string(tokens.userID), "device_id": .string(device.id),
            ], noStore: true)
    }
}

/// `options.device` of a login body, kept with the session. `deviceId` (24 hex digits, as a
/// string or as realm-web's `{"$oid": hex}`) is echoed as the session's device id unless absent
/// or all zeros; then a new ObjectId is the device's id. Every session keeps one: it is the
/// access tokens' `baas_device_id`.
struct Device: Sendable {
    let id: String
    let json: String

    static let members = ["platform", "platformVersion", "sdkVersion", "deviceName", "appId", "appVersion"]

    init(_ body: RequestJSON, unixSeconds: Int64) throws {
        let device = try body.optionalObject("options")?.optionalObject("device")
        id = try device.flatMap(Self.givenID) ?? ObjectID.make(at: unixSeconds).hex
        var kept: JSONObject = ["deviceId": .string(id)]
        for name in Self.members {
            if let v = try device?.optionalString(name, maxBytes: 256) { kept[name] = .string(v) }
        }
        json = JSONValue.object(kept).jsonString
    }

    /// The client's own device id, lower-cased; `nil` when it sent none (or the zero id).
    private static func givenID(_ device: RequestJSON) throws -> String? {
        let hex: String?
        switch device.object["deviceId"] {
        case nil, .null: return nil
        case .string(let s): hex = s
        case .object(let o) where o.keys == ["$oid"]: hex = o["$oid"]?.stringValue
        default: hex = nil
        }
        guard let hex else { throw TokenError(.invalidParameter, "\"deviceId\" must be 24 hex digits or {\"$oid\": 24 hex digits}") }
        if hex.isEmpty { return nil }
        guard ObjectID(hex: hex) != nil else { throw TokenError(.invalidParameter, "\"deviceId\" must be 24 hex digits") }
        let lower = hex.lowercased()
        return lower.allSatisfy { $0 == "0" } ? nil : lower
    }
}
