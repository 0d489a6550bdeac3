import Foundation
import Hummingbird
import JOSE
import Sessions

extension AuthServer {
    /// Refresh and logout (`BASE/auth/session`, refresh bearer); a user's sessions (`BASE/auth/sessions`, access bearer).
    func addSessionRoutes(to routes: RouteTable) {
        // The refresh proves its bearer itself: its one store transaction finds the session, and
        // so the app, whose `refresh_rotation` applies (no lookup by the bearer step first).
        routes.on(.post, RouteTable.base + "/auth/session") { request, context in
            let token = try BearerMiddleware.token(of: request)
            do {
                let pair = try await self.refreshInItsApp(token)
                context.app = pair.clientID
                if self.apps[pair.clientID]?.config.refreshRotation == true {
                    return JSONResponse.make(
                        status: 201, .object(["access_token": .string(pair.accessToken), "refresh_token": .string(pair.refreshToken)]),
                        noStore: true)
                }
                return JSONResponse.make(status: 201, .object(["access_token": .string(pair.accessToken)]), noStore: true)
            } catch let e as TokenError where e.code.rejectsToken && e.code != .userDisabled {
                throw TokenError(.invalidSession, "the refresh token was refused (\(e.code.rawValue))")
            }
        }
        // Logout ends the refresh token's session, and answers 204 also when there is nothing
        // to end (a session already ended, a token never issued): realm-web's `logOut()` runs after
        // `deleteUser()` and rejects on a 401. An access token is the wrong kind (401), as anywhere.
        routes.on(.delete, RouteTable.base + "/auth/session") { request, context in
            let token = try BearerMiddleware.token(of: request)
            switch try await self.service.bearer(refreshToken: token) {
            case .live(let session):
                context.app = session.clientID
                try await self.service.revokeSession(id: session.id, reason: "logout")
            case .ended(let session), .reused(let session):
                context.app = session.clientID
            case .unknown:
                if (try? await self.service.verifyAccessToken(token, audiences: self.appIDs, checkSession: false)) != nil {
                    throw TokenError(.invalidSession, "logout takes the session's refresh token, not an access token")
                }
            }
            return JSONResponse.noContent()
        }
        routes.on(.get, RouteTable.base + "/auth/sessions", bearer: .access) { _, context in
            let (session, app) = try self.bearer(context)
            let now = Int64(app.sessions.configuration.clock.now().timeIntervalSince1970)
            let live = try await app.sessions.sessions(of: session.userID).filter { $0.isLive(at: now) && $0.clientID == session.app }
            let list: [JSONValue] = live.map { f in
                let device = f.device.flatMap { try? JSONValue(parsing: $0).objectValue } ?? JSONObject()
                return .object([
                    "id": .string(f.id), "device_id": device["deviceId"] ?? .null, "platform": device["platform"] ?? .null,
                    "device_name": device["deviceName"] ?? .null, "created_at": .int(f.createdAt), "last_used_at": .int(f.lastUsedAt),
                    "current": .bool(f.id == session.sessionID),
                ])
            }
            return JSONResponse.make(status: 200, .array(list))
        }
        routes.on(.delete, RouteTable.base + "/auth/sessions/:id", bearer: .access) { _, context in
            let (session, app) = try self.bearer(context)
            let id = try context.parameters.require("id")
            guard let target = try await app.sessions.session(id: id), target.userID == session.userID else {
                throw TokenError(.notFound, "the user has no session with that id")
            }
            try await app.sessions.revokeSession(id: id, reason: "user")
            return JSONResponse.noContent()
        }
    }

    /// The session the bearer step proved and its app.
    func bearer(_ context: AuthRequestContext) throws -> (AuthenticatedSession, AppRuntime) {
        guard let session = context.session else { throw TokenError(.invalidSession, "this call needs a bearer token") }
        return (session, try app(session.app))
    }
}
