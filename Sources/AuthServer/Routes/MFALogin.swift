import Foundation
import Hummingbird
import Identity
import JOSE
import Sessions

/// The second step of an email/password sign-in for a user with a second factor: the login
/// answers 401 `MFARequired` with a single-use `mfa_token` (a ``PendingAuthentication``, 5
/// minutes), and `POST BASE/app/{app}/auth/providers/local-userpass/mfa` `{"mfa_token", PROOF}`
/// answers as the login would have, PROOF being one factor's members (``SecondFactors``:
/// `"code"` or `"recovery_code"`, or `"passkey"`, an assertion over the challenge of
/// `…/mfa/passkey/options`). A wrong code leaves the token alive (until it expires; the lock
/// answers 429); a dead token or a refused assertion is 401 `AuthError`.
struct MFALoginRoutes: Sendable {
    let server: AuthServer

    func secondStep(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let app = try server.pathApp(context)
        guard server.accounts[app.config.id] != nil else { throw TokenError(.providerNotFound, "the app has no local-userpass provider") }
        let body = try await RequestJSON.read(request, context: context)
        let token = try body.string("mfa_token", maxBytes: 128)
        guard let proof = try SecondFactors.proof(.body(body)) else { throw TokenError(.missingParameter, "a second factor's proof is required") }
        let (step, device) = try await Self.liveStep(token, app: app)
        let environment = FactorEnvironment(sessions: app.sessions, passkeys: server.config.passkeys)
        let check: MFACheck, authentication: Authentication?
        do {
            (check, authentication) = try await SecondFactors.finish(proof, step, environment)
        } catch let e as TokenError where e.code == .invalidInput || e.code == .authFailed {
            throw Self.dead  // the factor was turned off since the password step, or the step was used meanwhile
        }
        try MFARoutes.answer(check, refused: .authFailed)
        guard let authentication else { throw Self.dead }
        let tokens = try await server.issueSession(authentication, app: app, device: device)
        return LoginRoutes.answer(tokens, device: device)
    }

    /// `{"mfa_token"}` → the options of a passkey assertion as the second factor: the user's
    /// passkeys, a challenge bound to that `mfa_token`.
    func passkeyOptions(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let app = try server.pathApp(context)
        guard server.accounts[app.config.id] != nil else { throw TokenError(.providerNotFound, "the app has no local-userpass provider") }
        let token = try await RequestJSON.read(request, context: context).string("mfa_token", maxBytes: 128)
        let (step, _) = try await Self.liveStep(token, app: app)
        let options = try await app.sessions.passkeySecondFactorOptions(userID: step.pending.userID, binding: step.token, relyingParty: server.config.passkeys)
        return JSONResponse.ok(["publicKey": options], noStore: true)
    }

    static let dead = TokenError(.authFailed, "the mfa_token is unknown, used or expired; sign in again")

    /// The live `mfa_token` `token` of an App Services login, with that login's device; else 401 `AuthError`.
    private static func liveStep(_ token: String, app: AuthServer.AppRuntime) async throws -> (PendingStep, Device) {
        guard let step = try await app.sessions.pendingStep(token), case .device(let json) = step.pending.resume else { throw dead }
        let now = Int64(app.sessions.configuration.clock.now().timeIntervalSince1970)
        return (step, try Device(storedJSON: json, fallbackAt: now))
    }
}

extension AuthServer {
    /// After an email/password login's credentials were right: returns when the user has no
    /// second factor (the session is issued), else throws 401 `MFARequired`, whose answer carries
    /// a new `mfa_token` (and so is `no-store`).
    func requireNoSecondFactor(_ authentication: Authentication, app: AppRuntime, device: Device) async throws {
        let sessions = app.sessions
        guard try await sessions.hasSecondFactor(userID: authentication.userID) else { return }
        let token = try await sessions.beginPendingAuthentication(
            PendingAuthentication(userID: authentication.userID, methods: authentication.methods, resume: .device(json: device.json)))
        var refusal = TokenError(.mfaRequired, "a second factor is required: send a code with the mfa_token")
        refusal.answerMembers = ["mfa_token": .string(token)]
        throw refusal
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
