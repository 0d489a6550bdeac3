import Foundation
import Hummingbird
import JOSE
import Sessions

/// The App Services session routes: refresh and logout (`BASE/auth/session`, the refresh token
/// read by the table and looked up here), a user's sessions (`BASE/auth/sessions`, access bearer).
struct SessionRoutes: Sendable {
    /// The store-wide session service (the refresh-token lookup, revocation, access-token verification).
    let service: SessionService
    let apps: [String: AuthServer.AppRuntime]
    let appIDs: Set<String>
    /// ``AuthServer/refreshInItsApp(_:allowed:)``.
    let refreshInItsApp: @Sendable (String) async throws -> TokenPair

    init(server: AuthServer) {
        service = server.service
        apps = server.apps
        appIDs = server.appIDs
        refreshInItsApp = { try await server.refreshInItsApp($0) }
    }

    /// The refresh proves its bearer itself: its one store transaction finds the session, and
    /// so the app, whose `refresh_rotation` applies (no lookup by the bearer step first).
    func refresh(_ request: Request, _ context: AuthRequestContext, token: String) async throws -> Response {
        do {
            let pair = try await refreshInItsApp(token)
            context.app = pair.clientID
            if apps[pair.clientID]?.config.refreshRotation == true {
                return JSONResponse.make(
                    status: 201, .object(["access_token": .string(pair.accessToken), "refresh_token": .string(pair.refreshToken)]),
                    noStore: true)
            }
            return JSONResponse.make(status: 201, .object(["access_token": .string(pair.accessToken)]), noStore: true)
        } catch let e as TokenError where e.code.rejectsToken && e.code != .userDisabled {
            throw TokenError(.invalidSession, "the refresh token was refused (\(e.code.rawValue))")
        }
    }

    /// Logout ends the refresh token's session, and answers 204 also when there is nothing
    /// to end (a session already ended, a token never issued): realm-web's `logOut()` runs after
    /// `deleteUser()` and rejects on a 401. An access token is the wrong kind (401), as anywhere.
    func logout(_ request: Request, _ context: AuthRequestContext, token: String) async throws -> Response {
        switch try await service.bearer(refreshToken: token) {
        case .live(let session):
            context.app = session.clientID
            try await service.revokeSession(id: session.id, reason: "logout")
        case .ended(let session), .reused(let session):
            context.app = session.clientID
        case .unknown:
            // An access token of ours, live or not (a refusal past its signature still names one).
            let isAccessToken: Bool
            do {
                _ = try await service.checkAccess(token, audiences: appIDs)
                isAccessToken = true
            } catch let refusal as AccessRefusal {
                isAccessToken = refusal.reason != .invalidToken
            } catch {
                isAccessToken = false
            }
            if isAccessToken { throw TokenError(.invalidSession, "logout takes the session's refresh token, not an access token") }
        }
        return JSONResponse.noContent()
    }

    /// The live sessions of the bearer's user (a user is one app's): its devices' App Services
    /// sessions, the sessions relying parties hold, and its OP browser sessions (`"platform":"web"`,
    /// their `id` the `sid`), so that ending every entry but the current one signs out everywhere.
    func list(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let (session, app) = (context.session, context.app)
        let now = Int64(app.sessions.configuration.clock.now().timeIntervalSince1970)
        let live = try await app.sessions.sessions(of: session.userID).filter { $0.isLive(at: now) }
        var list: [JSONValue] = live.map { f in
            let device = f.device.flatMap { try? JSONValue(parsing: $0).objectValue } ?? JSONObject()
            return .object([
                "id": .string(f.id), "device_id": device["deviceId"] ?? .null, "platform": device["platform"] ?? .null,
                "device_name": device["deviceName"] ?? .null, "created_at": .int(f.createdAt), "last_used_at": .int(f.lastUsedAt),
                "current": .bool(f.id == session.sessionID),
            ])
        }
        for browser in try await app.sessions.opBrowserSessions(of: session.userID) {
            list.append(
                .object([
                    "id": .string(browser.sessionID), "device_id": .null, "platform": "web", "device_name": .null,
                    "created_at": .int(browser.createdAt), "last_used_at": .int(browser.authTime), "current": false,
                ]))
        }
        return JSONResponse.make(status: 200, .array(list))
    }

    /// Ends one session of the bearer's user: an App Services or relying party's session by its
    /// id, or an OP browser session by its `sid`.
    func delete(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let (session, app) = (context.session, context.app)
        let id = try context.parameters.require("id")
        if let target = try await app.sessions.session(id: id), target.userID == session.userID {
            try await app.sessions.revokeSession(id: id, reason: "user")
        } else if try await !app.sessions.endOPBrowserSession(userID: session.userID, sessionID: id) {
            throw TokenError(.notFound, "the user has no session with that id")
        }
        return JSONResponse.noContent()
    }
}

extension AuthServer {
    /// The one refresh of both protocols (`POST BASE/auth/session` here, the refresh grant of
    /// `/oauth/token`): refreshes `token` in one store transaction with its own app's manager, rotating when that
    /// app has `refresh_rotation` and keeping the token otherwise.
    /// - Parameter allowed: which apps the caller may refresh for; another app's token is
    ///   `invalid_grant` with nothing spent.
    /// - Throws: Sessions' refusals; `invalid_grant` for a token of an app this server does not
    ///   serve or `allowed` refuses.
    func refreshInItsApp(_ token: String, allowed: @escaping @Sendable (String) -> Bool = { _ in true }) async throws -> TokenPair {
        let apps = self.apps
        return try await service.refresh(token) { client in
            guard let app = apps[client], allowed(client) else { return nil }
            return RefreshIssuer(app.sessions, mode: app.config.refreshRotation ? .rotate : .keep)
        }
    }
}
