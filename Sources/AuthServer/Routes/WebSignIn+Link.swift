import Foundation
import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// Linking through the redirect flow, as realm-web's `linkCredentials` with a redirect credential
/// does it (docs/oidc.md, "Linking through realm-web's flow"):
/// 1. `GET BASE/app/{app}/auth/providers/{provider}/login?redirect=&state=&link=true&providerRedirectHeader=true`
///    with the user's access token: the link is stored and the answer is 200 with
///    `X-BAAS-Location: PUBLIC_URL/oauth/link?flow=HANDLE` (realm-web opens it in a window);
///    every refusal is JSON (401 `InvalidSession`, 400 `InvalidParameter`, 404), never a sign-in.
/// 2. `GET /oauth/link?flow=HANDLE`: the page names the account the identity will join and binds
///    itself to the browser (``FlowBinding``); its button posts to the same URL with a CSRF token.
/// 3. `POST /oauth/link?flow=HANDLE`: the link is spent and the provider's flow begins, bound to
///    that browser (another browser's or site's post is the 400 page); the callback joins the identity (``finishLink(_:_:_:flow:app:)``).
extension WebSignInRoutes {
    static let linkPath = "/oauth/link"

    /// Step 1, after the table proved the bearer (a bad or another app's token is 401 there).
    func startLink(_ request: Request, _ context: AuthRequestContext, app: AuthServer.AppRuntime, throttle: @Sendable () async throws -> Void)
        async throws -> Response
    {
        guard let session = context.session else { throw TokenError(.invalidSession, "linking needs the user's access token") }
        let query = request.uri.queryParameters
        guard query.get("providerRedirectHeader") == "true" else {
            throw TokenError(.invalidParameter, "a redirect link needs providerRedirectHeader=true (the answer is a header, not a redirect)")
        }
        guard let redirect = query.get("redirect"), app.config.redirectURIs.contains(redirect) else {
            throw TokenError(.invalidParameter, "\"redirect\" must be one of the app's redirect_uris")
        }
        guard let state = query.get("state"), !state.isEmpty, state.utf8.count <= Self.maxCallerState else {
            throw TokenError(.invalidParameter, "\"state\" must be 1 to \(Self.maxCallerState) bytes")
        }
        let provider = try context.parameters.require("provider")
        guard let method = webMethod(provider, app: app) else {
            throw TokenError(.providerNotFound, "the app has no web sign-in with \(provider.prefix(64))")
        }
        try await throttle()
        let link = WebSignInLinkFlow(
            userID: session.userID, sessionID: session.sessionID, redirect: redirect, state: state,
            created: Int64(app.sessions.configuration.clock.now().timeIntervalSince1970))
        let handle = try await server.store.startWebSignInLink(link, method: type(of: method).name, app: app.config.id)
        var headers = HTTPFields()
        headers[HTTPFields.Element.Name("X-BAAS-Location")!] = server.config.publicURL + Self.linkPath + "?flow=" + handle
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    /// An older realm-web's sign-in start (`providerRedirectHeader=true` without `link`): 200 with
    /// `X-BAAS-Location` naming the same start without that parameter, which its window opens.
    func windowStart(_ request: Request) -> Response {
        let query = request.uri.queryParameters
        let kept: [(String, String?)] = ["redirect", "state", "device"].map { ($0, query.get($0)) }
        var headers = HTTPFields()
        headers[HTTPFields.Element.Name("X-BAAS-Location")!] = OIDCAuthorizationError.append(kept, to: server.config.publicURL + request.uri.path)
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    /// Step 2: the confirmation page.
    func linkPage(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        guard let pending = try await pendingLink(request, context) else { return Self.errorPage(Self.expiredLink, app: nil) }
        let bound = try FlowBinding.value(for: request.headers[values: .cookie], kind: .webSignIn, secure: secureCookie)
        return try await page(pending, csrf: WebSignInLinkFlow.csrf(token: pending.token, binding: bound.value), setCookie: bound.setCookie)
    }

    /// Step 3: the button. Only the browser that loaded the page (its binding cookie, the CSRF
    /// token derived from it, a same-origin post or `Origin: null`) goes on to the provider.
    func confirmLink(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let fields = try await OIDCAuthorizeRoutes.formFields(request, context)
        guard let pending = try await pendingLink(request, context) else { return Self.errorPage(Self.expiredLink, app: nil) }
        let cookies = request.headers[values: .cookie]
        let binding = OPSessionCookie.value(named: FlowBinding.name(.webSignIn, secure: secureCookie), in: cookies)
        let sameOrigin = OIDCCSRF.isSameOriginPost(
            origin: request.headers[.origin], secFetchSite: request.headers[HTTPFields.Element.Name("Sec-Fetch-Site")!],
            publicURL: server.config.publicURL, bound: true)
        guard let binding, sameOrigin,
            OIDCCSRF.matches(fields[OIDCPages.csrfField], expected: WebSignInLinkFlow.csrf(token: pending.token, binding: binding))
        else {
            // Another browser's post (the binding cookie missing or another), or another site's: the
            // error page, as for the hosted login's forms; the link stays for its own browser.
            server.logger.info("web sign-in link refused", metadata: ["app": .string(pending.app.config.id), "code": "foreign_form"])
            return Self.errorPage(Self.foreignLink, app: nil)
        }
        let now = Int64(pending.app.sessions.configuration.clock.now().timeIntervalSince1970)
        guard try await server.store.spendWebSignInLink(token: pending.token, app: pending.app.config.id, at: now) else {
            return Self.errorPage(Self.expiredLink, app: nil)
        }
        let link = pending.link
        return try await begin(
            pending.method, for: .link(userID: link.userID, sessionID: link.sessionID, redirect: link.redirect, state: link.state),
            app: pending.app, request)
    }

    /// A link's callback, once the flow was found bound to this browser.
    struct LinkCallback: Sendable {
        let userID: String, sessionID: String, redirect: String, state: String
    }

    /// The end of a link: the session that asked is still live, the provider's answer passes its
    /// checks, the identity joins the user (409 `AccountNameInUse` as `#_baas_error` when another
    /// user has it), and the session goes on with a fresh access token:
    /// `URL#_baas_client_app_id=APP&_baas_link=ok&_baas_ua=ACCESS$$USERID$DEVICEID&_baas_state=S`.
    func finishLink(_ link: LinkCallback, _ methodName: String, _ answer: WebSignInAnswer, flow: WebSignInFlow, app: AuthServer.AppRuntime)
        async throws -> Response
    {
        guard app.config.redirectURIs.contains(link.redirect) else {
            return Self.errorPage("The redirect address is no longer one this app registered.", app: app.config.id)
        }
        do {
            guard try await app.sessions.isLive(sessionID: link.sessionID, userID: link.userID) else {
                throw TokenError(.invalidSession, "the session that asked for the link has ended")
            }
            let (method, proof) = try await proof(methodName, answer, flow: flow, app: app)
            let linked = try await Authentication.link(proof, method: type(of: method), to: link.userID, sessions: app.sessions)
            let session = AuthenticatedSession(kind: .access, app: app.config.id, userID: link.userID, sessionID: link.sessionID, refreshToken: nil)
            let access = try await server.continueSession(session, after: linked, app: app)
            let deviceID = try await app.sessions.session(id: link.sessionID)?.deviceID ?? ""
            return Self.redirect(
                to: WebSignInAnswerLocation.linked(
                    app: app.config.id, accessToken: access, userID: link.userID, deviceID: deviceID, redirect: link.redirect, state: link.state))
        } catch let e as TokenError {
            logRefusal(e, app: app.config.id, method: methodName)
            return Self.redirect(to: WebSignInAnswerLocation.error(Self.message(e), redirect: link.redirect, state: link.state))
        }
    }

    static let expiredLink = "This link request has expired or was already used. Go back to the app and start again."
    static let foreignLink = "This confirmation came from another browser or another site. Go back to the app and start again here."

    /// A live link the request's `flow` names, with its app and (still web-capable) method, its
    /// session still live; `nil` otherwise.
    private func pendingLink(_ request: Request, _ context: AuthRequestContext) async throws -> PendingLink? {
        guard let handle = request.uri.queryParameters.get("flow") else { return nil }
        let now = Int64(server.service.configuration.clock.now().timeIntervalSince1970)
        guard let (token, appID, methodName, link) = try await server.store.webSignInLink(handle: handle, apps: server.appIDs, at: now) else {
            return nil
        }
        context.app = appID
        let app = try server.app(appID)
        guard let method = webMethod(methodName, app: app), app.config.redirectURIs.contains(link.redirect),
            try await app.sessions.isLive(sessionID: link.sessionID, userID: link.userID)
        else { return nil }
        return PendingLink(token: token, app: app, method: method, link: link)
    }

    private struct PendingLink: Sendable {
        let token: String, app: AuthServer.AppRuntime, method: any WebSignInMethod, link: WebSignInLinkFlow
    }

    /// The confirmation page, its form allowed to lead to the provider (the post's answer is a
    /// redirect there, which `form-action` governs).
    private func page(_ pending: PendingLink, csrf: String, setCookie: String) async throws -> Response {
        let account = try await MFARoutes.email(of: pending.link.userID, sessions: pending.app.sessions)
        let page = LinkConfirmationPage(
            provider: type(of: pending.method).title, account: account, app: pending.app.config.id, csrf: csrf)
        let upstream = pending.method.authorizationURL(
            server.config.providerURLs, callback: callback(pending.method), state: "",
            flow: try WebSignInFlow(caller: .link(userID: "", sessionID: "", redirect: "", state: ""), pkce: false, created: 0))
        var headers = HTTPFields()
        for (name, value) in OIDCPages.headers(redirectURI: upstream) { if let n = HTTPFields.Element.Name(name) { headers[n] = value } }
        headers[.setCookie] = setCookie
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page.render())))
    }
}
