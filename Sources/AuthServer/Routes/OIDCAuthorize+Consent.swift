import Foundation
import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// The consent page of a flow (a third-party client, or `prompt=consent`): `GET
/// /oauth/consent?flow=HANDLE` shows the client's name and the scopes asked for; its form posts
/// `decision` (`allow` or `deny`) and the CSRF token to the same URL. Allowing remembers the
/// scopes for the user and the client (the `consents` table) and sends the code; denying sends
/// `access_denied`. Without a live OP session the browser goes to the flow's login page first.
extension OIDCAuthorizeRoutes {
    func consentPage(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        guard let resumed = try await resume(request, context) else { return Self.unknownFlow }
        guard let session = try await signedIn(request, resumed) else {
            return Self.redirect(pageURL(Self.loginPath, resumed.handle))
        }
        return try await consentPage(resumed, userID: session.userID)
    }

    func consent(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let fields = try await Self.formFields(request, context)
        guard let resumed = try await resume(request, context) else { return Self.unknownFlow }
        guard let session = try await signedIn(request, resumed) else {
            return Self.redirect(pageURL(Self.loginPath, resumed.handle), status: .seeOther)
        }
        guard isFromOwnPage(request, fields, resumed) else { return try await consentPage(resumed, userID: session.userID, status: 403) }
        let a = resumed.request
        switch fields[OIDCPages.decisionField] {
        case OIDCPages.allow:
            // An allowed set adds to what was allowed before.
            try await server.store.addConsent(userID: session.userID, clientID: a.client.id, scopes: a.scopes, at: now)
            return try await continueFlow(resumed, session: session, setCookie: nil, consented: true)
        case OIDCPages.deny:
            let clients = self.clients, time = now, handle = resumed.handle
            let ended = try await server.store.loginFlow(handle: handle, clients: clients, at: time, consume: true)
            guard ended != nil else { return Self.unknownFlow }
            return Self.redirect(a.error("access_denied", "the user denied the request", issuer: issuer).location, status: .seeOther)
        default:
            return try await consentPage(resumed, userID: session.userID, status: 400)
        }
    }

    /// The OP session of the browser when it may answer this flow: live, the hinted user's if
    /// the request named one, and meeting what the request asked of the sign-in (a consent page
    /// reached by rewriting the login page's URL must not issue a code on an older sign-in).
    private func signedIn(_ request: Request, _ resumed: OIDCResumedFlow) async throws -> OPSession? {
        guard let session = try await liveSession(request, app: resumed.request.client.app) else { return nil }
        if let hinted = resumed.flow.hintedSubject, hinted != session.userID { return nil }
        // A factor turned on since this browser signed in must be passed on the login page first.
        var factorDue = false
        if !session.amr.contains("mfa") {
            factorDue = try await server.app(resumed.request.client.app).sessions.hasSecondFactor(userID: session.userID)
        }
        guard resumed.request.isMet(by: session, flowStarted: resumed.flow.created, at: now, secondFactorDue: factorDue) else { return nil }
        return session
    }

    private func consentPage(_ resumed: OIDCResumedFlow, userID: String, status: Int? = nil) async throws -> Response {
        let client = resumed.request.client
        let email = try await server.app(client.app).sessions.accountEmail(of: userID)
        let page = OIDCPages.Consent(clientName: client.name, csrf: resumed.flow.csrf, scopes: resumed.request.scopes, email: email)
        return Self.page(.consent(page), app: client.app, redirectURI: resumed.request.redirectURI, status: status)
    }
}
