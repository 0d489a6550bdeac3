import Foundation
import Hummingbird
import JOSE
import NIOCore
import Sessions
import OIDCProvider

/// The OpenID Provider's authorization endpoint, `GET` and `POST` (form) `/oauth/authorize`
/// (RFC 6749 §4.1.1, OIDC Core §3.1.2), and the hosted pages of its flows: the login page
/// (`/oauth/login?flow=…`, OIDCAuthorize+Login.swift) and the consent page
/// (`/oauth/consent?flow=…`, OIDCAuthorize+Consent.swift).
///
/// A request is checked first (``OIDCAuthorizationRequest/parse(_:clients:issuer:)``): an unknown
/// client or an unregistered redirect URI gets the 400 error page, the other faults a redirect to
/// the client with `error`. Then the browser's OP session decides: none (or `prompt=login`, an
/// exceeded `max_age`, an `id_token_hint` naming someone else) starts a flow and sends the browser
/// to the login page; a consent missing sends it to the consent page; else the code goes back at once.
struct OIDCAuthorizeRoutes: Sendable {
    let server: AuthServer

    static let loginPath = "/oauth/login"
    static let consentPath = "/oauth/consent"
    /// At most this many parameters of a request are read.
    static let maxParameters = 64

    var clients: [String: OIDCClientConfig] { server.config.oidcClients }
    var now: Int64 { Int64(server.service.configuration.clock.now().timeIntervalSince1970.rounded(.down)) }
    var issuer: String { server.config.issuer }
    var secureCookie: Bool { OPSessionCookie.isSecure(publicURL: server.config.publicURL) }

    /// `GET /oauth/authorize`: the request in the query.
    func authorize(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let pairs = AccountPageRoutes.pairs(request.uri.query ?? "", max: Self.maxParameters)
        return try await answer(pairs, request, context)
    }

    /// `POST /oauth/authorize`: the request as an `application/x-www-form-urlencoded` body
    /// (OIDC Core §3.1.2.1); a body of another type carries no parameters.
    func authorizeForm(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let fields = try await Self.formPairs(request, context)
        return try await answer(fields, request, context)
    }

    private func answer(_ pairs: [(name: String, value: String)], _ request: Request, _ context: AuthRequestContext) async throws -> Response {
        switch OIDCAuthorizationRequest.parse(pairs, clients: clients, issuer: issuer) {
        case .errorPage(let message):
            return Self.errorPage(message)
        case .redirect(let error):
            return Self.redirect(error.location)
        case .valid(let authorization):
            context.app = authorization.client.app
            return try await proceed(authorization, request, context)
        }
    }

    /// What the browser session makes of a checked request: the ``AuthorizationDecision``, rendered.
    private func proceed(_ a: OIDCAuthorizationRequest, _ request: Request, _ context: AuthRequestContext) async throws -> Response {
        var hinted: String?
        if let hint = a.idTokenHint {
            // OIDC Core §3.1.2.1: the hint names who should be signed in.
            guard let subject = await server.verifyIDTokenHint(hint, clientID: a.client.id)?.subject else {
                return Self.redirect(
                    a.error("invalid_request", "id_token_hint is not an ID token this server issued to this client", issuer: issuer).location)
            }
            hinted = subject
        }
        let time = now
        let decision = try await AuthorizationDecision.decide(
            a, session: try await liveSession(request, app: a.client.app), hintedSubject: hinted, at: time,
            secondFactor: { try await secondFactorNeed(a, $0) }, consent: { try await needsConsent(a, userID: $0.userID) })
        switch decision {
        case .error(let error, let description):
            return Self.redirect(a.error(error, description, issuer: issuer).location)
        case .signIn, .secondFactor:
            // The login page asks for the second factor alone when the OP session has the first.
            return try await startFlow(a, hintedSubject: hinted, request, context, at: time, page: Self.loginPath)
        case .consent:
            return try await startFlow(a, hintedSubject: hinted, request, context, at: time, page: Self.consentPath)
        case .code(let session):
            let code = try await server.store.issueAuthorizationCode(a, session: session, at: time)
            return Self.redirect(a.successLocation(code: code, issuer: issuer))
        }
    }

    /// Stores the flow of `a`, bound to this browser (``FlowBinding``: its cookie set on this
    /// answer), and sends the browser to the flow's `page`. A stored flow counts toward
    /// `login_per_address`: over it, the error page (429, `Retry-After`) and nothing stored.
    private func startFlow(
        _ a: OIDCAuthorizationRequest, hintedSubject: String?, _ request: Request, _ context: AuthRequestContext, at time: Int64, page: String
    ) async throws -> Response {
        do {
            try await server.throttle("login_addr:" + (context.clientAddress ?? ""), server.config.limits.loginPerAddress, context)
        } catch let e as TokenError where e.code == .tooManyRequests {
            var answer = Self.page(
                .error(message: "Too many sign-ins were started from this address. Wait a moment, then try again."), app: "Sign in",
                redirectURI: nil, status: 429)
            answer.headers[.retryAfter] = String(e.retryAfter ?? 1)
            return answer
        }
        let bound = try FlowBinding.value(for: request.headers[values: .cookie], kind: .hosted, secure: secureCookie)
        let (handle, _) = try await server.store.startLoginFlow(a, hintedSubject: hintedSubject, browser: FlowBinding.digest(bound.value), at: time)
        return Self.redirect(pageURL(page, handle), setCookie: bound.setCookie)
    }

    /// Whether a code for `a` on the one-factor OP `session` needs the second factor first
    /// (`acr_values` asks for it, or the user has one, turned on after this browser signed in), and
    /// whether the user has one to give: one read of the user's factors.
    func secondFactorNeed(_ a: OIDCAuthorizationRequest, _ session: OPSession) async throws -> (needed: Bool, available: Bool) {
        let available = try await server.app(a.client.app).sessions.hasSecondFactor(userID: session.userID)
        return (a.requiresMFA || available, available)
    }

    /// `true` when the consent page must be shown: `prompt=consent`, or a third-party client the
    /// user has not yet allowed every requested scope.
    func needsConsent(_ a: OIDCAuthorizationRequest, userID: String) async throws -> Bool {
        if a.prompt.contains(.consent) { return true }
        if a.client.firstParty { return false }
        let granted = try await server.store.consentedScopes(userID: userID, clientID: a.client.id)
        return !Set(a.scopes).isSubset(of: granted)
    }

    /// The live OP session the request's cookie names for `app`, whose user still exists and is
    /// not disabled; `nil` otherwise.
    func liveSession(_ request: Request, app: String) async throws -> OPSession? {
        guard let token = cookieToken(request, app: app), let session = try await server.store.opSession(token: token, app: app, at: now) else {
            return nil
        }
        let user = try await server.app(app).sessions.user(id: session.userID)
        return user?.disabledAt == nil && user != nil ? session : nil
    }

    func cookieToken(_ request: Request, app: String) -> String? {
        OPSessionCookie.token(in: request.headers[values: .cookie], app: app, secure: secureCookie)
    }

    /// The absolute URL of a flow's page.
    func pageURL(_ path: String, _ handle: String) -> String { server.config.publicURL + path + "?flow=" + handle }
}

extension OIDCAuthorizeRoutes {
    /// The fields of an `application/x-www-form-urlencoded` body, repeats kept; none for another type.
    /// - Throws: `request_too_large` over the body limit.
    static func formPairs(_ request: Request, _ context: AuthRequestContext) async throws -> [(name: String, value: String)] {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: context.maxUploadSize) } catch is NIOTooManyBytesError {
            throw TokenError(.requestTooLarge, "the request body is larger than \(context.maxUploadSize) bytes")
        }
        guard type == "application/x-www-form-urlencoded" else { return [] }
        return AccountPageRoutes.pairs(String(buffer: buffer), max: maxParameters)
    }

    /// The fields of a hosted page's form, the first of each name.
    static func formFields(_ request: Request, _ context: AuthRequestContext) async throws -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in try await formPairs(request, context) where fields[name] == nil { fields[name] = value }
        return fields
    }

    /// A hosted page: `status` (default ``OIDCPages/status(of:)``), the headers of
    /// ``OIDCPages/headers(redirectURI:script:)``, and a cookie to set.
    static func page(_ page: OIDCPages.Page, app: String, redirectURI: String?, status: Int? = nil, setCookie: String? = nil) -> Response {
        var headers = HTTPFields()
        for (name, value) in OIDCPages.headers(redirectURI: redirectURI, script: OIDCPages.hasScript(page)) {
            if let n = HTTPFields.Element.Name(name) { headers[n] = value }
        }
        if let setCookie { headers[.setCookie] = setCookie }
        return Response(
            status: HTTPResponse.Status(code: status ?? OIDCPages.status(of: page)), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: OIDCPages.render(page, app: app))))
    }

    /// The 400 error page: nothing is sent back to any client.
    static func errorPage(_ message: String) -> Response { page(.error(message: message), app: "Sign in", redirectURI: nil) }

    /// The page of a flow that is unknown, used or expired.
    static var unknownFlow: Response { errorPage("This sign-in page has expired or was already used.") }

    /// `302` (a GET's answer) or `303` (a form post's) to `location`, never cached, with a cookie to set.
    static func redirect(_ location: String, status: HTTPResponse.Status = .found, setCookie: String? = nil) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        headers[HTTPFields.Element.Name("Referrer-Policy")!] = "no-referrer"
        if let setCookie { headers[.setCookie] = setCookie }
        return Response(status: status, headers: headers)
    }
}
