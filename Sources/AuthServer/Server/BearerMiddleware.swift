import Foundation
import Hummingbird
import JOSE
import Sessions

/// Authentication: proves the request's bearer token and puts the session into the context.
///
/// An access token is verified by the store's keys against the app it names, and live-checked:
/// its session must be live and its user present. A refresh token must belong to a live session.
/// Every refusal is 401 `InvalidSession` (the clients' "refresh and retry" or "signed out").
struct BearerMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let server: AuthServer
    let kind: AuthenticatedSession.Kind
    /// With `true`, a request without an `Authorization` header passes unauthenticated.
    let optional: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            if optional { return try await next(request, context) }
            throw TokenError(.invalidSession, "this call needs an Authorization: Bearer token")
        }
        guard header.utf8.count <= 16 * 1024, header.lowercased().hasPrefix("bearer ") else {
            throw TokenError(.invalidSession, "the Authorization header must be \"Bearer\" and a token")
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        var context = context
        context.session = try await (kind == .access ? access(token) : refresh(token))
        context.app = context.session?.app
        if let pathApp = context.parameters.get("app"), pathApp != context.session?.app {
            throw TokenError(.invalidSession, "the token belongs to another app")
        }
        return try await next(request, context)
    }

    private func access(_ token: String) async throws -> AuthenticatedSession {
        // The unverified `aud` only picks the app whose verifier then checks everything.
        guard let appID = Self.unverifiedAudience(token), let app = server.apps[appID] else {
            throw TokenError(.invalidSession, "the access token is not one this server issued")
        }
        let claims: AccessTokenClaims
        do { claims = try await app.sessions.verifyAccessToken(token, checkSession: true) } catch let e as TokenError where e.code.rejectsToken {
            throw TokenError(.invalidSession, "the access token is not valid: \(e.code.rawValue)")
        }
        guard let sid = claims.sessionID else { throw TokenError(.invalidSession, "the access token has no session") }
        guard let user = try await app.sessions.user(id: claims.subject), user.disabledAt == nil else {
            throw TokenError(.invalidSession, "the user of this token is gone or disabled")
        }
        return AuthenticatedSession(kind: .access, app: appID, userID: claims.subject, sessionID: sid, refreshToken: nil)
    }

    private func refresh(_ token: String) async throws -> AuthenticatedSession {
        guard let first = server.apps.values.first, let session = try await first.sessions.session(ofRefreshToken: token),
              let app = server.apps[session.clientID] else {
            throw TokenError(.invalidSession, "the refresh token is not one this server issued")
        }
        guard session.isLive(at: Int64(Date().timeIntervalSince1970)) else {
            throw TokenError(.invalidSession, "the session of this refresh token has ended")
        }
        guard try await app.sessions.user(id: session.userID) != nil else { throw TokenError(.invalidSession, "the user of this token is gone") }
        return AuthenticatedSession(kind: .refresh, app: session.clientID, userID: session.userID, sessionID: session.id, refreshToken: token)
    }

    /// The `aud` (first, or only) of a JWT's payload, unverified: only used to pick a verifier.
    static func unverifiedAudience(_ token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count <= 8 * 1024,
              let payload = try? Base64URL.decode(String(parts[1]), what: "payload"),
              let claims = try? JSONValue(parsing: String(decoding: payload, as: UTF8.self)).objectValue else { return nil }
        if let s = claims["aud"]?.stringValue { return s }
        return claims["aud"]?.arrayValue?.first?.stringValue
    }
}
