import Foundation
import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// The login page's "Continue with Google / Apple / Facebook" buttons: one link per web sign-in
/// provider the flow's app sets up for the web, to `GET /oauth/login/{google|apple|facebook}?flow=HANDLE`,
/// which sends the browser to the provider (``WebSignInRoutes/begin(_:for:app:)``, caller
/// ``WebSignInCaller/hostedLogin(flowHandle:)``). The provider's callback (``WebSignInRoutes``)
/// then signs in the OP session (``signedIn(_:_:app:_:email:shownAt:)``) and the flow goes on as
/// after a password, or shows this login page again with the refusal.
///
/// Links, not forms: the browser leaves for the provider by a `GET`, which the policy's
/// `form-action` does not govern, and the start changes nothing the flow's page had not already
/// allowed (the authorization request itself is a `GET`). Each start counts against
/// `login_per_address`, as realm-web's start does (each stores a flow).
extension OIDCAuthorizeRoutes {
    /// The path of a provider's button: `/oauth/login/{callback name}`.
    static func webSignInPath(_ method: any WebSignInMethod) -> String { loginPath + "/" + type(of: method).callbackName }

    /// `GET /oauth/login/{provider}?flow=HANDLE`: to the provider's sign-in page; an unknown, used
    /// or expired flow is the 400 page; a provider the app does not set up for the web, or a
    /// throttled start, the login page with its message.
    func startWebSignIn(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        guard let resumed = try await resume(request, context) else { return Self.unknownFlow }
        let app = try server.app(resumed.request.client.app)
        let name = try context.parameters.require("provider")
        guard let method = webSignInMethods(app: app.config.id).first(where: { type(of: $0).callbackName == name }) else {
            let message = "This app does not sign in with \(WebSignInAnswer.printable(name, 32)) here."
            return loginPage(resumed, email: nil, message: .upstream(message), status: 404, action: pageURL(Self.loginPath, resumed.handle))
        }
        do {
            try await server.throttle("login_addr:" + (context.clientAddress ?? ""), server.config.limits.loginPerAddress, context)
            return try await WebSignInRoutes(server: server).begin(method, for: .hostedLogin(flowHandle: resumed.handle), app: app, request)
        } catch let e as TokenError where e.code == .tooManyRequests || e.code == .serverBusy {
            return waitPage(resumed, email: nil, e, action: pageURL(Self.loginPath, resumed.handle))
        }
    }

    /// The buttons of a flow's login page: the app's providers set up for the web, Google, Apple,
    /// Facebook in that order.
    func webSignInButtons(_ resumed: OIDCResumedFlow) -> [OIDCPages.WebSignInButton] {
        webSignInMethods(app: resumed.request.client.app).map { method in
            OIDCPages.WebSignInButton(title: type(of: method).title, href: pageURL(Self.webSignInPath(method), resumed.handle))
        }
    }

    /// The login methods of `app` that can run their provider's web flow (each credential it needs set).
    private func webSignInMethods(app: String) -> [any WebSignInMethod] {
        WebSignInMethods.standard.compactMap {
            guard let method = server.loginMethods[app]?.method(named: $0.name) as? any WebSignInMethod, method.webSignInProblem == nil
            else { return nil }
            return method
        }
    }
}
