import Foundation
import Hummingbird
import Identity
import JOSE
import Sessions
import OIDCProvider

/// Passkeys on the hosted login: the "Sign in with a passkey" button of the login page (an app
/// with the `passkey` provider) and the passkey button of the second step (a user with a
/// passkey), both run by ``PasskeyScript``. The script posts the page's CSRF token (and the second
/// step's token) to `POST /oauth/login/passkey?flow=HANDLE` for the options, then the assertion
/// as the field `passkey` of a form posting like the page's own. A refused assertion shows the page
/// again (401), the lock 429.
extension OIDCAuthorizeRoutes {
    /// The options route of a flow's passkey buttons.
    static let passkeyOptionsPath = loginPath + "/passkey"

    /// `GET /oauth/passkey.js`: ``PasskeyScript``.
    func passkeyScript(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/javascript; charset=utf-8"
        headers[.cacheControl] = "public, max-age=3600"
        headers[HTTPFields.Element.Name("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: PasskeyScript.source)))
    }

    /// `POST /oauth/login/passkey?flow=HANDLE` (form: the CSRF token, and the second step's
    /// token on the second page) → `{"publicKey": request options}`: a discoverable sign-in's, or
    /// the second step's user's passkeys with a challenge bound to that step.
    func passkeyOptions(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let fields = try await Self.formFields(request, context)
        guard let resumed = try await resume(request, context) else { throw TokenError(.authFailed, "the sign-in expired: reload the page") }
        guard isFromOwnPage(request, fields, resumed) else { throw TokenError(.authFailed, "the form expired: reload the page") }
        let app = try server.app(resumed.request.client.app)
        let options: JSONValue
        if let token = fields[OIDCPages.secondStepField] {
            guard let record = try await liveSecondStep(token, resumed, app: app) else { throw TokenError(.authFailed, "the second step expired") }
            options = try await app.sessions.passkeySecondFactorOptions(userID: record.pending.userID, binding: record.token, relyingParty: server.config.passkeys)
        } else {
            guard server.signsInWithPasskeys(app.config.id) else { throw TokenError(.providerNotFound, "the app has no passkey provider") }
            options = try await app.sessions.passkeyLoginOptions(relyingParty: server.config.passkeys).options
        }
        return JSONResponse.ok(["publicKey": options], noStore: true)
    }

    /// The login form's post of a passkey sign-in (field `passkey`), its CSRF token checked.
    func passkeySignIn(_ resumed: OIDCResumedFlow, _ field: String, app: AuthServer.AppRuntime, _ request: Request, _ context: AuthRequestContext)
        async throws -> Response
    {
        guard server.signsInWithPasskeys(app.config.id) else { return loginPage(resumed, email: nil, message: .passkeyRefused, status: 400) }
        let check: PasskeyCheck
        do {
            try await server.throttle("login_addr:" + (context.clientAddress ?? ""), server.config.limits.loginPerAddress, context)
            guard let response = PasskeyLogin.assertion(formField: field), let challenge = WebAuthnRelyingParty.challenge(in: response.clientDataJSON) else {
                return loginPage(resumed, email: nil, message: .passkeyRefused, status: 400)
            }
            check = try await app.sessions.checkPasskeyLogin(challengeID: challenge, response: response, relyingParty: server.config.passkeys)
        } catch let e as TokenError where e.code == .tooManyRequests || e.code == .serverBusy {
            return waitPage(resumed, email: nil, e)
        }
        switch check {
        case .accepted(let userID, let verified):
            let methods = [PasskeyLogin.name] + (verified ? [PasskeyLogin.userVerifiedMethod] : [])
            return try await signedIn(
                resumed, Authentication(userID: userID, methods: methods, time: app.sessions.configuration.clock.now()), app: app, request)
        case .refused:
            return loginPage(resumed, email: nil, message: .passkeyRefused, status: 401)
        case .locked(let after):
            return waitPage(resumed, email: nil, TokenError(.tooManyRequests, "locked").retrying(after: after))
        }
    }

    /// The options URL of the login page's passkey button, when `app` signs in with passkeys.
    func passkeyLoginOptions(_ resumed: OIDCResumedFlow) -> String? {
        server.signsInWithPasskeys(resumed.request.client.app) ? pageURL(Self.passkeyOptionsPath, resumed.handle) : nil
    }

    /// The live second step `token` of this flow, else `nil`.
    func liveSecondStep(_ token: String, _ resumed: OIDCResumedFlow, app: AuthServer.AppRuntime) async throws -> PendingStep? {
        guard let step = try await app.sessions.pendingStep(token), step.pending.flowHandle == resumed.handle else { return nil }
        return step
    }
}
