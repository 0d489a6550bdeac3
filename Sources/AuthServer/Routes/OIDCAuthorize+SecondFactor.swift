import Foundation
import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// The hosted login page's second step. After a right password for an account with a second
/// factor, the page asks for a code (field `code`: a TOTP code, or a recovery code in the same
/// field) or a passkey, carrying the single-use token of that password step (a
/// ``PendingAuthentication`` resuming the flow, 5 minutes) and
/// posting to the login page's own URL. A right code signs the OP session in with `amr`
/// `["pwd","otp","mfa"]` and the flow goes on; a wrong one shows the page again (401) with the
/// token still alive, under the second factor's lock (429 with `Retry-After`); a dead token is
/// the login page again. A step-up (`acr_values=urn:tokentool:acr:mfa` while the OP session has
/// one factor, or a web sign-in under it) asks the same page, the first step being the OP
/// session's or the provider's sign-in.
extension OIDCAuthorizeRoutes {
    /// After a first step (`authentication`): the second page for a user with a second factor,
    /// posting to `action` when it is shown at another URL than the login page's; else `nil`. A
    /// disabled user gets the login page saying so, and no second step is stored.
    /// - Throws: `store_unavailable`, `internal_error` (random generator).
    func secondFactorPage(
        _ resumed: OIDCResumedFlow, _ authentication: Authentication, app: AuthServer.AppRuntime, action: String? = nil
    ) async throws -> Response? {
        let sessions = app.sessions
        guard try await sessions.hasSecondFactor(userID: authentication.userID) else { return nil }
        let user = try await sessions.user(id: authentication.userID)
        guard let user, user.disabledAt == nil else { return loginPage(resumed, email: nil, message: .disabled, action: action) }
        let pending = PendingAuthentication(userID: authentication.userID, methods: authentication.methods, resume: .hostedFlow(handle: resumed.handle))
        // At most one live second step per flow and first step: the token is derived from the
        // flow's own secret (its CSRF token, 32 random bytes kept server-side and shown only on
        // this flow's pages), so showing the page again shows the same one and stores nothing.
        let derived = Self.secondStepToken(csrf: resumed.flow.csrf, methods: authentication.methods, userID: authentication.userID)
        let token = try await sessions.beginPendingAuthentication(pending, derived: derived)
        return try await secondFactorPage(resumed, token: token, userID: authentication.userID, app: app, message: nil, action: action)
    }

    /// The second step's token of a flow whose CSRF token is `csrf`, for the first step `methods`
    /// of `userID`: SHA-256 over the three, base64url (43 characters, as an issued token).
    static func secondStepToken(csrf: String, methods: [String], userID: String) -> String {
        let first = methods.joined(separator: ",")
        return Base64URL.encode(SHA2.sha256(Array("tokentool pending-auth\u{0}\(csrf)\u{0}\(userID)\u{0}\(first)".utf8)))
    }

    /// The login page's `GET` of a flow whose browser has an OP session of one factor (of the
    /// flow's hinted user if it names one, meeting the flow's `prompt=login` and `max_age`) that
    /// needs the second factor (a step-up, ``OIDCAuthorizationRequest/requiresMFA``, or a user
    /// whose factor was turned on since): the second page straight away. `nil` otherwise (the login page).
    func stepUpPage(_ resumed: OIDCResumedFlow, _ request: Request) async throws -> Response? {
        guard let session = try await liveSession(request, app: resumed.request.client.app), !session.amr.contains("mfa"),
            resumed.flow.hintedSubject == nil || resumed.flow.hintedSubject == session.userID,
            resumed.request.isFresh(session, flowStarted: resumed.flow.created, at: now),
            try await secondFactorNeed(resumed.request, session).needed
        else { return nil }
        let first = Authentication(
            userID: session.userID, methods: OPSession.methods(reproducing: session.amr), time: Date(timeIntervalSince1970: Double(session.authTime)))
        return try await secondFactorPage(resumed, first, app: try server.app(resumed.request.client.app))
    }

    /// The post of the second page (`fields` has ``secondStepField``), its CSRF token checked.
    func secondStep(
        _ resumed: OIDCResumedFlow, _ fields: [String: String], app: AuthServer.AppRuntime, _ request: Request, _ context: AuthRequestContext
    ) async throws -> Response {
        let token = String((fields[OIDCPages.secondStepField] ?? "").prefix(128))
        guard let step = try await liveSecondStep(token, resumed, app: app) else {
            return loginPage(resumed, email: nil, message: .expiredForm, status: 401)
        }
        func again(_ message: OIDCPages.LoginMessage, _ status: Int) async throws -> Response {
            try await secondFactorPage(resumed, token: step.token, userID: step.pending.userID, app: app, message: message, status: status)
        }
        let proof: SecondFactorProof
        do {
            guard let read = try SecondFactors.proof(.fields(fields)) else { return try await again(TOTPFactor.pageRefusal, 401) }
            proof = read
        } catch {
            return try await again(PasskeyFactor.pageRefusal, 400)  // a field that is not its factor's proof (a hostile form)
        }
        let check: MFACheck, authentication: Authentication?
        do {
            (check, authentication) = try await SecondFactors.finish(proof, step, FactorEnvironment(sessions: app.sessions, passkeys: server.config.passkeys))
        } catch let e as TokenError where e.code == .invalidInput || e.code == .authFailed {
            // The factor was turned off since the password step, or the step was used meanwhile.
            return loginPage(resumed, email: nil, message: .expiredForm, status: 401)
        }
        switch check {
        case .accepted:
            guard let authentication else { return loginPage(resumed, email: nil, message: .expiredForm, status: 401) }
            return try await signedIn(resumed, authentication, app: app, request)
        case .refused:
            return try await again(proof.factor.pageRefusal, 401)
        case .locked(let after):
            var page = try await again(.wait(seconds: Int(after)), 429)
            page.headers[.retryAfter] = String(after)
            return page
        }
    }

    /// The second page of `userID`'s sign-in, with the passkey button when the user has a passkey.
    private func secondFactorPage(
        _ resumed: OIDCResumedFlow, token: String, userID: String, app: AuthServer.AppRuntime, message: OIDCPages.LoginMessage?,
        status: Int? = nil, action: String? = nil
    ) async throws -> Response {
        let client = resumed.request.client
        let factors = try await app.sessions.mfaStatus(userID: userID)
        let page = OIDCPages.SecondFactor(
            clientName: client.name, csrf: resumed.flow.csrf, token: token, message: message, action: action,
            passkeyOptions: factors.passkeys > 0 ? pageURL(Self.passkeyOptionsPath, resumed.handle) : nil,
            codes: factors.totp || factors.recoveryCodesLeft > 0)
        return Self.page(.secondFactor(page), app: client.app, redirectURI: resumed.request.redirectURI, status: status)
    }
}
