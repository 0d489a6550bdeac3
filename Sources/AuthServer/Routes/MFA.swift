import Foundation
import Hummingbird
import JOSE
import Sessions

/// `BASE/auth/mfa[…]` (access bearer): the bearer's user's TOTP factor and recovery codes. Every
/// change needs a sign-in in the last ``recentSignIn`` seconds: the session's own sign-in time
/// (its `auth_time`; its creation for a session from before sessions kept one), never the access
/// token's `iat` (a refresh is not a sign-in). A refused code is 400 `InvalidParameter`; a locked user 429.
struct MFARoutes: Sendable {
    /// Seconds after its sign-in that a session may change the user's factors.
    static let recentSignIn: Int64 = 10 * 60

    func status(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let status = try await context.app.sessions.mfaStatus(userID: context.session.userID)
        return JSONResponse.ok(
            ["totp": .bool(status.totp), "passkeys": .int(Int64(status.passkeys)), "recovery_codes_left": .int(Int64(status.recoveryCodesLeft))],
            noStore: true)
    }

    func enrol(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        try await Self.requireRecentSignIn(context)
        let (sessions, userID) = (context.app.sessions, context.session.userID)
        let email = try await Self.email(of: userID, sessions: sessions)
        let enrolment = try await sessions.beginTOTP(userID: userID, issuer: context.app.config.id, email: email)
        return JSONResponse.ok(["secret": .string(enrolment.secret), "otpauth_uri": .string(enrolment.uri)], noStore: true)
    }

    func confirm(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        try await recoveryCodes(request, context) { try await $0.confirmTOTP(userID: $1, code: $2) }
    }

    func disable(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let code = try await Self.code(request, context)
        try await Self.requireRecentSignIn(context)
        try Self.answer(try await context.app.sessions.disableTOTP(userID: context.session.userID, code: code))
        return JSONResponse.noContent()
    }

    func newRecoveryCodes(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        try await recoveryCodes(request, context) { try await $0.regenerateRecoveryCodes(userID: $1, code: $2) }
    }

    /// A change checked by the body's `code` whose answer is a new set of recovery codes.
    private func recoveryCodes(
        _ request: Request, _ context: UserRequestContext, _ change: (SessionManager, String, String) async throws -> (MFACheck, [String])
    ) async throws -> Response {
        let code = try await Self.code(request, context)
        try await Self.requireRecentSignIn(context)
        let (check, codes) = try await change(context.app.sessions, context.session.userID, code)
        try Self.answer(check)
        return JSONResponse.ok(["recovery_codes": .array(codes.map { .string($0) })], noStore: true)
    }

    /// 401 `ReauthenticationRequired` unless the bearer's session signed in within ``recentSignIn``.
    static func requireRecentSignIn(_ context: UserRequestContext) async throws {
        let sessions = context.app.sessions
        guard let session = try await sessions.session(id: context.session.sessionID) else {
            throw TokenError(.invalidSession, "the session has ended")
        }
        let now = Int64(sessions.configuration.clock.now().timeIntervalSince1970)
        guard now - (session.signIn?.authTime ?? session.createdAt) <= Self.recentSignIn else {
            throw TokenError(.reauthenticationRequired, "changing a second factor needs a sign-in in the last 10 minutes; sign in again")
        }
    }

    /// The body's `code` (bounded; never echoed).
    private static func code(_ request: Request, _ context: UserRequestContext) async throws -> String {
        try await RequestJSON.read(request, context: context.base).string("code", maxBytes: 64)
    }

    /// Throws for a check that was not accepted: 400 `InvalidParameter`, or 429 with `Retry-After`.
    static func answer(_ check: MFACheck, refused: TokenError.Code = .invalidMFACode) throws {
        switch check {
        case .accepted: return
        case .refused: throw TokenError(refused, "the code is wrong, stale or used")
        case .locked(let after):
            throw TokenError(.tooManyRequests, "too many wrong codes; try again in \(after) s").retrying(after: after)
        }
    }

    /// The name an authenticator app shows for the account: its email, else an identity's, else the user id.
    static func email(of userID: String, sessions: SessionManager) async throws -> String {
        if let email = try await sessions.accountEmail(of: userID) { return email }
        return try await sessions.identities(of: userID).lazy.compactMap(\.email).first ?? userID
    }
}
