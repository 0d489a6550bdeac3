import Foundation
import Hummingbird
import JOSE
import Sessions

/// Authentication: proves the request's bearer token, for the route table (``RouteTable``).
///
/// An access token is verified by the store's keys against the app it names, and live-checked:
/// its session must be live and its user present. A refresh token must belong to a live session.
/// Only an App Services session's own tokens open these rows: an access token issued to an OpenID
/// Connect client (`client_id` = the client, though its `aud` is the app) is the wrong kind, as
/// that client's refresh token is. Every refusal is 401 `InvalidSession` (the clients' "refresh
/// and retry" or "signed out").
struct BearerCheck: Sendable {
    let server: AuthServer

    /// The session `request`'s bearer token of `kind` proves, noted as the request's app.
    /// - Throws: `invalid_session` for no token, a bad one, or one of another app than the path's.
    func session(of request: Request, kind: AuthenticatedSession.Kind, context: AuthRequestContext) async throws -> AuthenticatedSession {
        let token = try Self.token(of: request)
        let session = try await (kind == .access ? access(token) : refresh(token))
        context.app = session.app
        if let pathApp = context.parameters.get("app"), pathApp != session.app {
            throw TokenError(.invalidSession, "the token belongs to another app")
        }
        return session
    }

    /// The bearer token of `request`'s `Authorization` header, read by ``BearerCredentials``.
    /// - Throws: `invalid_session` when there is none, the header is not `Bearer`, or its token is
    ///   empty, over ``BearerCredentials/maxTokenBytes`` or not a b64token.
    static func token(of request: Request) throws -> String {
        guard let header = request.headers[.authorization] else {
            throw TokenError(.invalidSession, "this call needs an Authorization: Bearer token")
        }
        guard case .success(let token) = BearerCredentials.token(of: header) else {
            throw TokenError(.invalidSession, "the Authorization header must be \"Bearer\" and a token")
        }
        return token
    }

    private func access(_ token: String) async throws -> AuthenticatedSession {
        // The apps share the store, its key ring and the issuer: the one resource check accepts the
        // tokens of every app, and the *verified* `aud` names the app (nothing read from the token
        // before that). An OpenID Connect client's token names its app in `aud` too: its
        // `client_id` says whose it is, and relying parties manage nothing of the account here.
        let access: ResourceAccess
        do {
            access = try await server.service.checkAccess(token, audiences: server.appIDs, requirement: .appSession)
        } catch let refusal as AccessRefusal {
            throw TokenError(.invalidSession, refusal.description)
        }
        return AuthenticatedSession(kind: .access, app: access.app, userID: access.userID, sessionID: access.sessionID, refreshToken: nil)
    }

    private func refresh(_ token: String) async throws -> AuthenticatedSession {
        // A session's user exists while the session does (the store deletes a user's sessions with it,
        // and the schema's foreign key holds it), so the session's lookup is the whole check. Only
        // the current token of a live session opens anything: a spent one is reuse (its session
        // is revoked, as a refresh with it would be), whatever route it is shown to.
        switch try await server.service.bearer(refreshToken: token) {
        case .live(let session) where server.apps[session.clientID] != nil:
            return AuthenticatedSession(kind: .refresh, app: session.clientID, userID: session.userID, sessionID: session.id, refreshToken: token)
        case .live, .unknown:
            throw TokenError(.invalidSession, "the refresh token is not one this server issued")
        case .ended:
            throw TokenError(.invalidSession, "the session of this refresh token has ended")
        case .reused:
            throw TokenError(.invalidSession, "the refresh token was replaced by a rotation: reuse, its session is now revoked")
        }
    }
}
