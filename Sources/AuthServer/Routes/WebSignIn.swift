import Foundation
import Hummingbird
import Identity
import JOSE
import Sessions
import OIDCProvider

/// Web sign-in with Google, Apple and Facebook, the server being their client: the App Services
/// redirect flow's start (`GET BASE/app/{app}/auth/providers/{provider}/login?redirect=&state=`)
/// and the providers' callback (`PUBLIC_URL/oauth/callback/{google|apple|facebook}`, GET, or
/// POST for Apple's `form_post`). The identity is the native login's: the method's own provider
/// checks, then ``Authentication/signIn(_:method:sessions:)`` and ``AuthServer/issueSession(_:app:device:)``.
struct WebSignInRoutes: Sendable {
    let server: AuthServer

    /// The longest realm-web `state` taken (it sends 12 letters).
    static let maxCallerState = 512
    /// The longest `device` parameter taken (base64 of a small JSON object).
    static let maxDevice = 4096

    /// The start: a browser that can be sent back (a registered `redirect`, a `state`) is sent to
    /// the provider, or back with `#_baas_error`; any other gets the 400 page. Counted against
    /// `login_per_address` only once it can go on (each start stores a flow).
    func start(_ request: Request, _ context: AuthRequestContext, throttle: @Sendable () async throws -> Void) async throws -> Response {
        let app = try server.pathApp(context)
        let query = request.uri.queryParameters
        if query.get("link") == "true" { return try await startLink(request, context, app: app, throttle: throttle) }
        if query.get("providerRedirectHeader") == "true" { return windowStart(request) }
        guard let redirect = query.get("redirect"), app.config.redirectURIs.contains(redirect) else {
            return Self.errorPage("The redirect address is not one this app registered (its redirect_uris).", app: app.config.id)
        }
        guard let state = query.get("state"), !state.isEmpty, state.utf8.count <= Self.maxCallerState else {
            return Self.errorPage("The sign-in request has no state.", app: app.config.id)
        }
        do {
            let provider = try context.parameters.require("provider")
            guard let method = server.loginMethods[app.config.id]?.method(named: provider) as? any WebSignInMethod else {
                throw TokenError(.providerNotFound, "the app has no web sign-in with \(provider.prefix(64))")
            }
            if let problem = method.webSignInProblem { throw TokenError(.providerNotFound, problem) }
            let device = try Self.device(query.get("device"))
            let now = Int64(app.sessions.configuration.clock.now().timeIntervalSince1970)
            _ = try Device(Self.loginBody(device: device), unixSeconds: now)  // refused here, not after the provider's page
            try await throttle()
            return try await begin(method, for: .appServices(redirect: redirect, state: state, device: device), app: app, request)
        } catch let e as TokenError where e.code != .tooManyRequests {
            return Self.redirect(to: WebSignInAnswerLocation.error(Self.message(e), redirect: redirect, state: state))
        }
    }

    /// Starts `method`'s round trip for `caller` (any caller: its start route has checked where
    /// the answer is to go): the flow stored, bound to the browser of `request` (``FlowBinding``,
    /// its cookie set on this answer), the browser sent to the provider.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    func begin(_ method: any WebSignInMethod, for caller: WebSignInCaller, app: AuthServer.AppRuntime, _ request: Request) async throws
        -> Response
    {
        let now = Int64(app.sessions.configuration.clock.now().timeIntervalSince1970)
        let bound = try FlowBinding.value(for: request.headers[values: .cookie], kind: .webSignIn, secure: secureCookie)
        var flow = try WebSignInFlow(caller: caller, pkce: type(of: method).usesPKCE, created: now)
        flow.browser = FlowBinding.digest(bound.value)
        let upstreamState = try await server.store.startWebSignIn(flow, method: type(of: method).name, app: app.config.id)
        var response = Self.redirect(
            to: method.authorizationURL(server.config.providerURLs, callback: callback(method), state: upstreamState, flow: flow))
        response.headers[.setCookie] = bound.setCookie
        return response
    }

    var secureCookie: Bool { OPSessionCookie.isSecure(publicURL: server.config.publicURL) }

    /// `GET PUBLIC_URL/oauth/callback/{name}`: the provider's answer in the query.
    func callback(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        var fields: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where fields.count < 16 && fields[String(name)] == nil {
            fields[String(name)] = String(value)
        }
        return try await finish(try context.parameters.require("provider"), WebSignInAnswer(fields: fields), request, context)
    }

    /// `POST PUBLIC_URL/oauth/callback/{name}`: the provider's answer as a form (Apple's `form_post`).
    func formPost(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        return try await finish(try context.parameters.require("provider"), WebSignInAnswer(fields: AccountPageRoutes.form(body)), request, context)
    }

    private func finish(_ name: String, _ answer: WebSignInAnswer, _ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let expired = "This sign-in has expired or was already used. Go back to the app and start again."
        guard let methodName = WebSignInMethods.methodName(callback: name), let state = answer.fields["state"] else { return Self.errorPage(expired, app: nil) }
        guard
            let (appID, flow) = try await server.store.finishWebSignIn(
                state: state, method: methodName, apps: server.appIDs, at: Int64(server.service.configuration.clock.now().timeIntervalSince1970))
        else { return Self.errorPage(expired, app: nil) }
        // Another browser than the one that started it (an attacker's own upstream sign-in, its
        // callback URL opened by a victim): the 400 page, never a sign-in, never `#_baas_ua`.
        guard FlowBinding.holds(flow.browser, in: request.headers[values: .cookie], kind: .webSignIn, secure: secureCookie) else {
            server.logger.info("web sign-in refused", metadata: ["app": .string(appID), "provider": .string(methodName), "code": "foreign_browser"])
            return Self.errorPage("This sign-in was started in another browser. Go back to the app and start again here.", app: nil)
        }
        context.app = appID
        let app = try server.app(appID)
        switch flow.caller {
        case .appServices(let redirect, let callerState, let device):
            // The config may have changed since the flow started (another instance, a restart).
            guard app.config.redirectURIs.contains(redirect) else {
                return Self.errorPage("The redirect address is no longer one this app registered.", app: appID)
            }
            do {
                let authentication = try await authenticate(methodName, answer, flow: flow, app: app)
                let now = Int64(app.sessions.configuration.clock.now().timeIntervalSince1970)
                let session = try Device(Self.loginBody(device: device), unixSeconds: now)
                let tokens = try await server.issueSession(authentication, app: app, device: session)
                return Self.redirect(
                    to: WebSignInAnswerLocation.success(
                        app: appID, tokens: tokens, deviceID: session.id, redirect: redirect, state: callerState))
            } catch let e as TokenError {
                logRefusal(e, app: appID, method: methodName)
                return Self.redirect(to: WebSignInAnswerLocation.error(Self.message(e), redirect: redirect, state: callerState))
            }
        case .hostedLogin(let handle):
            let oidc = OIDCAuthorizeRoutes(server: server)
            // The authorization may have ended or expired while the provider's page was open.
            guard let resumed = try await oidc.resume(handle: handle), resumed.request.client.app == appID else {
                return OIDCAuthorizeRoutes.unknownFlow
            }
            do {
                let authentication = try await authenticate(methodName, answer, flow: flow, app: app)
                return try await oidc.signedIn(
                    resumed, authentication, app: app, request, shownAt: oidc.pageURL(OIDCAuthorizeRoutes.loginPath, handle))
            } catch let e as TokenError {
                logRefusal(e, app: appID, method: methodName)
                return oidc.loginPage(
                    resumed, email: nil, message: .upstream(Self.message(e)), action: oidc.pageURL(OIDCAuthorizeRoutes.loginPath, handle))
            }
        case .link(let userID, let sessionID, let redirect, let callerState):
            return try await finishLink(
                LinkCallback(userID: userID, sessionID: sessionID, redirect: redirect, state: callerState), methodName, answer, flow: flow, app: app)
        }
    }

    /// The provider's answer made the native login's identity, signed in.
    /// - Throws: as ``proof(_:_:flow:app:)``; `user_disabled`, `store_unavailable`.
    private func authenticate(_ methodName: String, _ answer: WebSignInAnswer, flow: WebSignInFlow, app: AuthServer.AppRuntime) async throws
        -> Authentication
    {
        let (_, proof) = try await proof(methodName, answer, flow: flow, app: app)
        return try await Authentication.signIn(proof, method: methodName, sessions: app.sessions)
    }

    /// The provider's answer made the native login's proof: the app's method (still set up for
    /// the web), no refusal, its own checks of the code and token.
    /// - Throws: `provider_not_found`, `auth_failed` (the provider refused), the provider's codes.
    func proof(_ methodName: String, _ answer: WebSignInAnswer, flow: WebSignInFlow, app: AuthServer.AppRuntime) async throws
        -> (method: any WebSignInMethod, proof: LoginProof)
    {
        guard let method = webMethod(methodName, app: app) else {
            throw TokenError(.providerNotFound, "the app no longer has web sign-in with \(methodName)")
        }
        if let refusal = answer.refusal { throw TokenError(.authFailed, "\(methodName) did not sign you in (\(refusal))") }
        return (method, try await method.finishWebSignIn(answer, flow: flow, callback: callback(method)))
    }

    /// The app's login method `name` when it runs the web flow now.
    func webMethod(_ name: String, app: AuthServer.AppRuntime) -> (any WebSignInMethod)? {
        guard let method = server.loginMethods[app.config.id]?.method(named: name) as? any WebSignInMethod, method.webSignInProblem == nil
        else { return nil }
        return method
    }

    func logRefusal(_ e: TokenError, app: String, method: String) {
        server.logger.info("web sign-in refused", metadata: ["app": .string(app), "provider": .string(method), "code": .string(e.code.rawValue)])
    }

    /// The callback URL of `method`, as registered at the provider.
    func callback(_ method: any WebSignInMethod) -> String { server.config.publicURL + "/oauth/callback/" + type(of: method).callbackName }
}
