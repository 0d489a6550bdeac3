import Foundation
import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// The hosted login page of a flow: `GET /oauth/login?flow=HANDLE` shows it, its form posts
/// `email`, `password` and the CSRF token to the same URL. A sign-in goes through the app's
/// `local-userpass` login method with the App Services login's limits (`login_per_address`, then
/// `failed_login_per_account` per email) and its one message for an unknown email and a wrong
/// password; it signs the browser in to the OP session, then the flow goes on to the consent page
/// or back to the client with its code.
extension OIDCAuthorizeRoutes {
    func loginPage(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        guard let resumed = try await resume(request, context) else { return Self.unknownFlow }
        if let page = try await stepUpPage(resumed, request) { return page }
        return loginPage(resumed, email: resumed.flow.loginHint, message: nil)
    }

    func login(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let fields = try await Self.formFields(request, context)
        guard let resumed = try await resume(request, context) else { return Self.unknownFlow }
        let email = String((fields["email"] ?? "").prefix(PasswordRule.maxEmailBytes))
        guard isFromOwnPage(request, fields, resumed) else { return loginPage(resumed, email: email, message: .expiredForm, status: 403) }
        let app = try server.app(resumed.request.client.app)
        if fields[OIDCPages.secondStepField] != nil { return try await secondStep(resumed, fields, app: app, request, context) }
        if let passkey = fields[OIDCPages.passkeyField], !passkey.isEmpty {
            return try await passkeySignIn(resumed, passkey, app: app, request, context)
        }
        let authentication: Authentication
        do {
            try await server.throttle("login_addr:" + (context.clientAddress ?? ""), server.config.limits.loginPerAddress, context)
            authentication = try await signIn(email: email, password: fields["password"] ?? "", app: app, context)
        } catch let e as TokenError {
            switch e.code {
            case .loginFailed, .authFailed, .missingParameter, .invalidParameter:
                return loginPage(resumed, email: email, message: .wrongCredentials)
            case .emailNotConfirmed:
                return loginPage(resumed, email: email, message: .confirmFirst)
            case .tooManyRequests, .serverBusy:
                return waitPage(resumed, email: email, e)
            default:
                throw e
            }
        }
        // A password alone never signs in an account that has a second factor: its second page comes first.
        if let page = try await secondFactorPage(resumed, authentication, app: app) { return page }
        return try await signedIn(resumed, authentication, app: app, request, email: email)
    }

    /// After a sign-in by any of the page's ways (`authentication`, of the password or of a web
    /// sign-in provider): the OP session signed in with the methods' `amr` (a provider token to
    /// keep, kept), then ``continueFlow(_:session:setCookie:consented:)``. Another user than the
    /// request's `id_token_hint` named, or a disabled one, gets the login page again (`email`
    /// prefilled, its form posting to `action` when it is shown at another URL than its own).
    /// - Throws: `store_unavailable`, `internal_error` (random generator).
    func signedIn(
        _ resumed: OIDCResumedFlow, _ authentication: Authentication, app: AuthServer.AppRuntime, _ request: Request, email: String? = nil,
        shownAt action: String? = nil
    ) async throws -> Response {
        if let hinted = resumed.flow.hintedSubject, hinted != authentication.userID {
            return loginPage(resumed, email: email, message: .otherAccount, action: action)
        }
        if resumed.request.requiresMFA, !OPSession.amr(of: authentication.methods).contains("mfa") {
            // acr_values asked for a second factor: its page (a web sign-in's too), or the error for a user with none.
            if let page = try await secondFactorPage(resumed, authentication, app: app, action: action) { return page }
            let refusal = resumed.request.error("unmet_authentication_requirements", "the user has no second factor", issuer: issuer)
            return Self.redirect(refusal.location, status: .seeOther)
        }
        let user = try await app.sessions.user(id: authentication.userID)
        guard let user, user.disabledAt == nil else { return loginPage(resumed, email: email, message: .disabled, action: action) }

        let appID = app.config.id, time = now
        let (token, session) = try await server.store.signInOPSession(
            app: appID, userID: user.id, amr: OPSession.amr(of: authentication.methods), ttl: app.config.opSessionTTL,
            current: cookieToken(request, app: appID), at: time)
        try await server.keepProviderToken(of: authentication, app: app)
        let cookie = OPSessionCookie.setCookie(token: token, app: appID, secure: secureCookie, maxAge: session.expiresAt - time)
        return try await continueFlow(resumed, session: session, setCookie: cookie)
    }

    /// The login page of a throttled or busy sign-in: 429 (503 busy) with `Retry-After`, saying to wait.
    func waitPage(_ resumed: OIDCResumedFlow, email: String?, _ e: TokenError, action: String? = nil) -> Response {
        let after = e.retryAfter ?? 1
        var page = loginPage(
            resumed, email: email, message: .wait(seconds: Int(after)), status: e.code == .serverBusy ? 503 : 429, action: action)
        page.headers[.retryAfter] = String(after)
        return page
    }

    /// After a sign-in, or a consent given (`consented`): the consent page if it is needed, else
    /// the flow ends with its code, `303` to the client.
    func continueFlow(_ resumed: OIDCResumedFlow, session: OPSession, setCookie: String?, consented: Bool = false) async throws -> Response {
        if !consented, try await needsConsent(resumed.request, userID: session.userID) {
            return Self.redirect(pageURL(Self.consentPath, resumed.handle), status: .seeOther, setCookie: setCookie)
        }
        guard
            let (finished, code) = try await server.store.finishLoginFlow(
                handle: resumed.handle, clients: clients, userID: session.userID, authTime: session.authTime, amr: session.amr,
                opSessionID: session.sessionID, at: now)
        else {
            var page = Self.unknownFlow
            if let setCookie { page.headers[.setCookie] = setCookie }
            return page
        }
        return Self.redirect(finished.request.successLocation(code: code, issuer: issuer), status: .seeOther, setCookie: setCookie)
    }

    /// The app's `local-userpass` method's check of `email` and `password`, as the App Services
    /// login runs it (its `failed_login_per_account` limit included).
    /// - Throws: `login_failed` (also when the app has no such method), `email_not_confirmed`,
    ///   `too_many_requests`, `store_unavailable`.
    private func signIn(email: String, password: String, app: AuthServer.AppRuntime, _ context: AuthRequestContext) async throws
        -> Authentication
    {
        guard !email.isEmpty, !password.isEmpty, let method = server.loginMethods[app.config.id]?.method(named: UserpassLogin.name) else {
            throw TokenError(.loginFailed, "the email or the password is wrong")
        }
        let body = RequestJSON(object: ["username": .string(email), "password": .string(password)])
        let proof = try await AppLoginMethods.authenticate(
            method, LoginRequest(body: body, sessions: app.sessions, linkingTo: nil, clientAddress: context.clientAddress))
        return try await Authentication.signIn(proof, method: UserpassLogin.name, sessions: app.sessions)
    }

    /// The login page of a flow, with a button per web sign-in provider of its app; its form
    /// posts to `action`, or to the page's own URL when that is `nil`.
    func loginPage(
        _ resumed: OIDCResumedFlow, email: String?, message: OIDCPages.LoginMessage?, status: Int? = nil, action: String? = nil
    ) -> Response {
        let client = resumed.request.client
        let login = OIDCPages.Login(
            clientName: client.name, csrf: resumed.flow.csrf, email: email, message: message, providers: webSignInButtons(resumed),
            action: action, passkeyOptions: passkeyLoginOptions(resumed))
        return Self.page(.login(login), app: client.app, redirectURI: resumed.request.redirectURI, status: status)
    }

    /// The live flow the `flow` query parameter names, read (not consumed); `nil` for an unknown,
    /// used or expired one.
    /// The live flow the request's `flow` parameter names, when this browser started it
    /// (``FlowBinding``); `nil` otherwise: another browser opening or posting a flow's page (a
    /// login CSRF) gets the error page, and nothing of its own session changes.
    func resume(_ request: Request, _ context: AuthRequestContext) async throws -> OIDCResumedFlow? {
        guard let handle = request.uri.queryParameters.get("flow") else { return nil }
        guard let resumed = try await resume(handle: handle),
            FlowBinding.holds(resumed.flow.browser, in: request.headers[values: .cookie], kind: .hosted, secure: secureCookie)
        else { return nil }
        context.app = resumed.request.client.app
        return resumed
    }

    /// The live flow `handle` names, read (not consumed); `nil` for an unknown, used or expired one.
    func resume(handle: String) async throws -> OIDCResumedFlow? {
        guard handle.utf8.count <= 200 else { return nil }
        let clients = self.clients, time = now
        return try await server.store.loginFlow(handle: handle, clients: clients, at: time, consume: false)
    }

    /// `true` when a post comes from the flow's own page: its CSRF token, and a browser that does
    /// not say it came from another site (``OIDCCSRF``).
    /// A bound flow (``resume(_:_:)`` checked the browser) also takes `Origin: null` from a
    /// browser without Fetch Metadata (the pages' `Referrer-Policy: no-referrer` makes old Safari
    /// send it); a cross-site post or another real origin is refused either way.
    func isFromOwnPage(_ request: Request, _ fields: [String: String], _ resumed: OIDCResumedFlow) -> Bool {
        OIDCCSRF.matches(fields[OIDCPages.csrfField], expected: resumed.flow.csrf)
            && OIDCCSRF.isSameOriginPost(
                origin: request.headers[.origin], secFetchSite: request.headers[HTTPFields.Element.Name("Sec-Fetch-Site")!],
                publicURL: server.config.publicURL, bound: resumed.flow.browser != nil)
    }
}
