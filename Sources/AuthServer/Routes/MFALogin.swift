import Foundation
import Hummingbird
import Identity
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
/// `{"mfa_token","recovery_code"}` or `{"mfa_token","passkey"}` (an assertion over the challenge of
/// `…/mfa/passkey/options`) answers as the login would have. A wrong code leaves the token alive
/// (until it expires; the lock answers 429); a dead token or a refused assertion is 401 `AuthError`.
struct MFALoginRoutes: Sendable {
    let server: AuthServer
    /// Seconds an `mfa_token` lives.
    static let tokenTTL: Int64 = 5 * 60

    func secondStep(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let app = try server.pathApp(context)
        guard server.accounts[app.config.id] != nil else { throw TokenError(.providerNotFound, "the app has no local-userpass provider") }
        let body = try await RequestJSON.read(request, context: context)
        let token = try body.string("mfa_token", maxBytes: 128)
        enum Proof { case code(MFACode), passkey(WebAuthnAssertionResponse) }
        let proof: Proof
        switch (try body.optionalString("code", maxBytes: 64), try body.optionalString("recovery_code", maxBytes: 64), body.object["passkey"]) {
        case (let c?, nil, nil): proof = .code(.totp(c))
        case (nil, let r?, nil): proof = .code(.recovery(r))
        case (nil, nil, let p?) where p != .null: proof = .passkey(try PasskeyLogin.assertion(body, "passkey"))
        case (nil, nil, _): throw TokenError(.missingParameter, "\"code\", \"recovery_code\" or \"passkey\" is required")
        default: throw TokenError(.invalidParameter, "send one of \"code\", \"recovery_code\" and \"passkey\"")
        }
        let sessions = app.sessions
        let now = Int64(sessions.configuration.clock.now().timeIntervalSince1970)
        let dead = TokenError(.authFailed, "the mfa_token is unknown, used or expired; sign in again")
        let record = try await Self.liveToken(token, app: app, now: now)
        // The token is spent with the proof, in one transaction: of two right answers, one signs in.
        let spend: @Sendable (any SessionStoreTransaction) async throws -> Void = { tx in
            guard case .consumed = try await tx.consumeOneTimeToken(token, purpose: .mfaLogin, app: app.config.id, at: now) else { throw dead }
        }
        let check: MFACheck
        let method: String
        switch proof {
        case .code(let code):
            method = TOTPFactor.name
            do {
                check = try await sessions.checkMFA(userID: record.subject, code: code) { _, tx in try await spend(tx) }
            } catch let e as TokenError where e.code == .invalidInput {
                throw dead  // the factor was turned off since the password step
            }
        case .passkey(let response):
            method = PasskeyLogin.name
            check = try await sessions.checkPasskeySecondFactor(
                userID: record.subject, binding: token, response: response, relyingParty: server.config.passkeys, accepted: spend)
        }
        try MFARoutes.answer(check, refused: .authFailed)
        let device = try Device(storedJSON: record.payload, fallbackAt: now)
        let authentication = Authentication(userID: record.subject, methods: [UserpassLogin.name, method], time: sessions.configuration.clock.now())
        let tokens = try await server.issueSession(authentication, app: app, device: device)
        return LoginRoutes.answer(tokens, device: device)
    }

    /// `{"mfa_token"}` → the options of a passkey assertion as the second factor: the user's
    /// passkeys, a challenge bound to that `mfa_token`.
    func passkeyOptions(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let app = try server.pathApp(context)
        guard server.accounts[app.config.id] != nil else { throw TokenError(.providerNotFound, "the app has no local-userpass provider") }
        let token = try await RequestJSON.read(request, context: context).string("mfa_token", maxBytes: 128)
        let now = Int64(app.sessions.configuration.clock.now().timeIntervalSince1970)
        let record = try await Self.liveToken(token, app: app, now: now)
        let options = try await app.sessions.passkeySecondFactorOptions(userID: record.subject, binding: token, relyingParty: server.config.passkeys)
        return JSONResponse.ok(["publicKey": options], noStore: true)
    }

    /// The live `mfa_token` `token`, else 401 `AuthError`.
    private static func liveToken(_ token: String, app: AuthServer.AppRuntime, now: Int64) async throws -> OneTimeTokenRecord {
        guard
            let record = try await app.sessions.store.read({ tx in try await tx.lookUpOneTimeToken(token, purpose: .mfaLogin, app: app.config.id) }),
            record.state(at: now) == .live
        else { throw TokenError(.authFailed, "the mfa_token is unknown, used or expired; sign in again") }
        return record
    }
}

extension AuthServer {
    /// After an email/password login's credentials were right: returns when the user has no
    /// second factor (the session is issued), else throws 401 `MFARequired`, whose answer carries
    /// a new `mfa_token` (and so is `no-store`).
    func requireNoSecondFactor(_ authentication: Authentication, app: AppRuntime, device: Device) async throws {
        let sessions = app.sessions
        guard try await sessions.hasSecondFactor(userID: authentication.userID) else { return }
        let now = Int64(sessions.configuration.clock.now().timeIntervalSince1970)
        let issued = try await sessions.store.transaction { tx in
            try await tx.issueOneTimeToken(
                purpose: .mfaLogin, app: app.config.id, subject: authentication.userID, payload: device.json, createdAt: now,
                expiresAt: now + MFALoginRoutes.tokenTTL)
        }
        var refusal = TokenError(.mfaRequired, "a second factor is required: send a code with the mfa_token")
        refusal.answerMembers = ["mfa_token": .string(issued.token)]
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
