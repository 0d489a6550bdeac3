import Foundation
import Hummingbird
import JOSE
import Sessions

extension OneTimeTokenPurpose {
    /// The `mfa_token` of an email/password sign-in waiting for its second factor; subject: the
    /// user; payload: the login's device.
    static let mfaLogin = OneTimeTokenPurpose(rawValue: "mfa-login")
}

/// The second step of an email/password sign-in for a user with a second factor: the login
/// answers 401 `MFARequired` with a single-use `mfa_token` (5 minutes), and
/// `POST BASE/app/{app}/auth/providers/local-userpass/mfa` `{"mfa_token","code"}` or
/// `{"mfa_token","recovery_code"}` answers as the login would have. A wrong code leaves the
/// token alive (until it expires; the lock answers 429); a dead token is 401 `AuthError`.
struct MFALoginRoutes: Sendable {
    let server: AuthServer
    /// Seconds an `mfa_token` lives.
    static let tokenTTL: Int64 = 5 * 60

    func secondStep(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let app = try server.pathApp(context)
        guard server.accounts[app.config.id] != nil else { throw TokenError(.providerNotFound, "the app has no local-userpass provider") }
        let body = try await RequestJSON.read(request, context: context)
        let token = try body.string("mfa_token", maxBytes: 128)
        let code: MFACode
        switch (try body.optionalString("code", maxBytes: 64), try body.optionalString("recovery_code", maxBytes: 64)) {
        case (let c?, nil): code = .totp(c)
        case (nil, let r?): code = .recovery(r)
        case (nil, nil): throw TokenError(.missingParameter, "\"code\" or \"recovery_code\" is required")
        default: throw TokenError(.invalidParameter, "send one of \"code\" and \"recovery_code\"")
        }
        let sessions = app.sessions
        let now = Int64(sessions.configuration.clock.now().timeIntervalSince1970)
        let dead = TokenError(.authFailed, "the mfa_token is unknown, used or expired; sign in again")
        guard let record = try await sessions.store.read({ tx in try await tx.lookUpOneTimeToken(token, purpose: .mfaLogin, app: app.config.id) }),
            record.state(at: now) == .live
        else { throw dead }
        let check: MFACheck
        do {
            check = try await sessions.checkMFA(userID: record.subject, code: code) { _, tx in
                // The token is spent with the code, in one transaction: of two right answers, one signs in.
                guard case .consumed = try await tx.consumeOneTimeToken(token, purpose: .mfaLogin, app: app.config.id, at: now) else { throw dead }
            }
        } catch let e as TokenError where e.code == .invalidInput {
            throw dead  // the factor was turned off since the password step
        }
        try MFARoutes.answer(check, context, refused: .authFailed)
        let device = try Device(storedJSON: record.payload, fallbackAt: now)
        let authentication = Authentication(userID: record.subject, methods: [UserpassLogin.name, "totp"], time: sessions.configuration.clock.now())
        let tokens = try await server.issueSession(authentication, app: app, device: device)
        return LoginRoutes.answer(tokens, device: device)
    }
}

extension AuthServer {
    /// After an email/password login's credentials were right: `nil` when the user has no second
    /// factor (the session is issued), else the 401 `MFARequired` answer with a new `mfa_token`
    /// (`Cache-Control: no-store`).
    func mfaChallenge(_ authentication: Authentication, app: AppRuntime, device: Device) async throws -> Response? {
        let sessions = app.sessions
        guard try await sessions.hasSecondFactor(userID: authentication.userID) else { return nil }
        let now = Int64(sessions.configuration.clock.now().timeIntervalSince1970)
        let issued = try await sessions.store.transaction { tx in
            try await tx.issueOneTimeToken(
                purpose: .mfaLogin, app: app.config.id, subject: authentication.userID, payload: device.json, createdAt: now,
                expiresAt: now + MFALoginRoutes.tokenTTL)
        }
        let name = "MFARequired"
        return JSONResponse.make(
            status: 401,
            .object([
                "error": "a second factor is required: send a code with the mfa_token", "error_code": .string(name),
                "link": .string(config.publicURL + "/errors#" + name), "mfa_token": .string(issued.token),
            ]), noStore: true)
    }
}

extension Device {
    /// The device a login kept in its `mfa_token`'s payload; a new id when it cannot be read.
    init(storedJSON json: String, fallbackAt unixSeconds: Int64) throws {
        let stored = (try? JSONValue(parsing: json))?.objectValue?["deviceId"]?.stringValue
        if let stored, ObjectID(hex: stored) != nil { self.id = stored } else { self.id = try ObjectID.make(at: unixSeconds).hex }
        self.json = stored == id ? json : JSONValue.object(["deviceId": .string(id)]).jsonString
    }
}
