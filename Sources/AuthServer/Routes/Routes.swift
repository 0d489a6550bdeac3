import Hummingbird

/// Every route of the server, on one screen: method, path, bearer, the limits it counts (by
/// config name; `inHandler` ones are counted by the handler, which alone knows their key or
/// moment), and the named handler. ``RouteTable`` applies the bearer and the per-address limits
/// before the handler runs; ``RouteTable/descriptions`` is this table for the OpenAPI document.
extension RouteTable {
    private static let app = base + "/app/:app"
    private static let userpass = app + "/auth/providers/local-userpass"
    private static let login = RouteThrottle.perAddress("login_per_address", key: "login_addr:") { $0.loginPerAddress }
    /// The limits the standard login methods declare (``LoginMethod/throttles``), each counted for
    /// the path's method when that method declares it.
    static let loginMethodLimits = LoginMethodRegistry.standard.methods.flatMap { $0.throttles.map { RouteThrottle.ofLoginMethod($0.limitName) } }
    private static let failedLogin = RouteThrottle.inHandler("failed_login_per_account")
    /// Every login's, then its method's, then (email/password) the account's failures.
    private static let loginLimits = [login] + loginMethodLimits + [failedLogin]
    private static let register = RouteThrottle.perAddress("register_per_address", key: "register_addr:") { $0.registerPerAddress }
    private static let send = RouteThrottle.perAddress("send_per_address", key: "send_addr:") { $0.sendPerAddress }
    private static let call = RouteThrottle.perAddress("call_per_address", key: "call_addr:") { $0.callPerAddress }
    /// Per email (key `call:<email>`), read from the body.
    private static let callPerEmail = RouteThrottle.inHandler("mail_per_address")
    /// Per address, then per `tokenId` (read from the body); the page answers them with its form.
    private static let reset = [RouteThrottle.inHandler("reset_per_address"), .inHandler("reset_per_token")]

    static let rows: [Row] = [
        Row(.get, "/healthz", "health") { .plain($0.health.health) },
        Row(.get, "/metrics", "metrics") { .plain($0.health.metrics) },  // the metrics token's bearer, else 404
        Row(.get, app + "/location", "location") { .plain($0.location.location) },
        Row(.post, app + "/auth/providers/:provider/login", bearer: .optionalAccess, throttles: loginLimits, "login") {
            .checked($0.login.read, then: $0.login.login)
        },
        Row(.post, base + "/auth/session", bearer: .refresh, "refresh") { .token($0.sessions.refresh) },
        Row(.delete, base + "/auth/session", bearer: .refresh, "logout") { .token($0.sessions.logout) },
        Row(.get, base + "/auth/sessions", bearer: .access, "listSessions") { .user($0.sessions.list) },
        Row(.delete, base + "/auth/sessions/:id", bearer: .access, "deleteSession") { .user($0.sessions.delete) },
        Row(.get, base + "/auth/profile", bearer: .access, "profile") { .user($0.profile.profile) },
        Row(.delete, base + "/auth/delete", bearer: .access, "deleteUser") { .user($0.profile.deleteUser) },
        Row(.post, base + "/auth/api_keys", bearer: .refresh, "createAPIKey") { .user($0.apiKeys.create) },
        Row(.get, base + "/auth/api_keys", bearer: .refresh, "listAPIKeys") { .user($0.apiKeys.list) },
        Row(.get, base + "/auth/api_keys/:id", bearer: .refresh, "getAPIKey") { .user($0.apiKeys.get) },
        Row(.delete, base + "/auth/api_keys/:id", bearer: .refresh, "deleteAPIKey") { .user($0.apiKeys.delete) },
        Row(.put, base + "/auth/api_keys/:id/enable", bearer: .refresh, "enableAPIKey") { .user($0.apiKeys.enable) },
        Row(.put, base + "/auth/api_keys/:id/disable", bearer: .refresh, "disableAPIKey") { .user($0.apiKeys.disable) },
        Row(.get, "/.well-known/jwks.json", "jwks") { .plain($0.oauth.jwks) },
        Row(.get, "/.well-known/oauth-authorization-server", "authorizationServerMetadata") { .plain($0.oauth.metadata) },
        Row(.get, "/.well-known/openid-configuration", "openIDConfiguration") { .plain($0.oauth.metadata) },
        Row(.post, "/oauth/token", bearer: .clientCredentials, "token") { .client(requireSecret: false, $0.oauth.token) },
        Row(.post, "/oauth/introspect", bearer: .clientCredentials, "introspect") { .client(requireSecret: true, $0.oauth.introspect) },
        Row(.post, "/oauth/revoke", bearer: .clientCredentials, "revoke") { .client(requireSecret: false, $0.oauth.revoke) },
        Row(.post, userpass + "/register", throttles: [register], passwordWork: true, "register") {
            .checked($0.accounts.readRegistration, then: $0.accounts.register)
        },
        Row(.post, userpass + "/confirm", "confirm") { .plain($0.accounts.confirm) },
        Row(.post, userpass + "/confirm/send", throttles: [send], "sendConfirmation") {
            .checked($0.accounts.readEmail, then: $0.accounts.sendConfirmation)
        },
        Row(.post, userpass + "/reset/send", throttles: [send], "sendReset") { .checked($0.accounts.readEmail, then: $0.accounts.sendReset) },
        Row(.post, userpass + "/reset", throttles: reset, passwordWork: true, "resetPassword") { .plain($0.accounts.reset) },
        Row(.post, userpass + "/confirm/call", throttles: [call, callPerEmail], "confirmThroughFunction") {
            .checked($0.accounts.readConfirmCall, then: $0.accounts.confirmCall)
        },
        Row(.post, userpass + "/reset/call", throttles: [call, callPerEmail], "resetThroughFunction") {
            .checked($0.accounts.readResetCall, then: $0.accounts.resetCall)
        },
        Row(.get, "/app/:app/confirm", "confirmPage") { .plain($0.pages.confirm) },
        Row(.get, "/app/:app/reset", "resetPage") { .plain($0.pages.resetForm) },
        Row(.post, "/app/:app/reset", throttles: reset, "resetPageForm") { .plain($0.pages.reset) },
        // Second factors (Routes/MFA.swift, Routes/MFALogin.swift).
        Row(.get, base + "/auth/mfa", bearer: .access, "mfaStatus") { .user($0.mfa.status) },
        Row(.post, base + "/auth/mfa/totp", bearer: .access, "enrolTOTP") { .user($0.mfa.enrol) },
        Row(.post, base + "/auth/mfa/totp/confirm", bearer: .access, "confirmTOTP") { .user($0.mfa.confirm) },
        Row(.delete, base + "/auth/mfa/totp", bearer: .access, "deleteTOTP") { .user($0.mfa.disable) },
        Row(.post, base + "/auth/mfa/recovery_codes", bearer: .access, "newRecoveryCodes") { .user($0.mfa.newRecoveryCodes) },
        Row(.post, userpass + "/mfa", throttles: [login], "loginSecondFactor") { .plain($0.mfaLogin.secondStep) },
        Row(.post, userpass + "/mfa/passkey/options", throttles: [login], "loginSecondFactorPasskeyOptions") { .plain($0.mfaLogin.passkeyOptions) },
        // Passkeys (Routes/Passkeys.swift); their sign-in is the login route's `passkey` provider.
        Row(.post, base + "/auth/passkeys/registration/options", bearer: .access, "passkeyRegistrationOptions") {
            .user($0.passkeys.registrationOptions)
        },
        Row(.post, base + "/auth/passkeys/registration", bearer: .access, "registerPasskey") { .user($0.passkeys.register) },
        Row(.get, base + "/auth/passkeys", bearer: .access, "listPasskeys") { .user($0.passkeys.list) },
        Row(.delete, base + "/auth/passkeys/:id", bearer: .access, "deletePasskey") { .user($0.passkeys.delete) },
        Row(.post, app + "/auth/providers/passkey/login/options", throttles: [login], "passkeyLoginOptions") { .plain($0.passkeys.loginOptions) },
        Row(.post, app + "/auth/providers/passkey/login", bearer: .optionalAccess, throttles: loginLimits, "passkeyLogin") {
            .checked($0.login.readPasskey, then: $0.login.login)
        },
        // Web sign-in: the App Services redirect flow's start, and the providers' callback.
        Row(.get, app + "/auth/providers/:provider/login", bearer: .optionalAccess, throttles: [login], "webSignInStart") {
            .checked($0.webSignIn.start)
        },
        Row(.get, "/oauth/callback/:provider", "webSignInCallback") { .plain($0.webSignIn.callback) },
        Row(.post, "/oauth/callback/:provider", "webSignInFormPost") { .plain($0.webSignIn.formPost) },
        // Linking through the redirect flow: its hosted confirmation page (Routes/WebSignIn+Link.swift).
        Row(.get, WebSignInRoutes.linkPath, "linkPage") { .plain($0.webSignIn.linkPage) },
        Row(.post, WebSignInRoutes.linkPath, "linkPageForm") { .plain($0.webSignIn.confirmLink) },
        // The OpenID Provider's token side (the token endpoint's grants above; discovery at openid-configuration).
        Row(.get, "/oauth/userinfo", bearer: .resource, "userinfo") { .resource(OIDCUserinfoRoutes.requirement, $0.userinfo.userinfo) },
        Row(.post, "/oauth/userinfo", bearer: .resource, "userinfoPost") { .resource(OIDCUserinfoRoutes.requirement, $0.userinfo.userinfo) },
        Row(.get, "/oauth/logout", "endSession") { .plain($0.logout.logout) },
        Row(.post, "/oauth/logout", "endSessionPost") { .plain($0.logout.logout) },
        Row(.get, "/openapi.json", "openAPIDocument") { .plain($0.openAPI.document) },  // this table, as OpenAPI 3.1
        // The OpenID Provider's authorization endpoint and the hosted pages of its flows (docs/oidc.md);
        // the login page's limits are counted by its handler, which answers them with the page.
        Row(.get, "/oauth/authorize", "authorize") { .plain($0.oidc.authorize) },
        Row(.post, "/oauth/authorize", "authorizeForm") { .plain($0.oidc.authorizeForm) },
        Row(.get, OIDCAuthorizeRoutes.loginPath, "loginPage") { .plain($0.oidc.loginPage) },
        Row(.post, OIDCAuthorizeRoutes.loginPath, throttles: [.inHandler("login_per_address"), failedLogin], "loginPageForm") {
            .plain($0.oidc.login)
        },
        Row(.get, OIDCAuthorizeRoutes.loginPath + "/:provider", throttles: [.inHandler("login_per_address")], "loginPageWebSignIn") {
            .plain($0.oidc.startWebSignIn)
        },
        Row(.post, OIDCAuthorizeRoutes.passkeyOptionsPath, throttles: [login], "loginPagePasskeyOptions") { .plain($0.oidc.passkeyOptions) },
        Row(.get, PasskeyScript.path, "passkeyScript") { .plain($0.oidc.passkeyScript) },
        Row(.get, OIDCAuthorizeRoutes.consentPath, "consentPage") { .plain($0.oidc.consentPage) },
        Row(.post, OIDCAuthorizeRoutes.consentPath, "consentPageForm") { .plain($0.oidc.consent) },
    ]
}

/// The route groups, each holding what its handlers use.
struct RouteGroups: Sendable {
    let health: HealthRoutes, location: LocationRoutes, login: LoginRoutes, sessions: SessionRoutes, profile: ProfileRoutes
    let apiKeys: APIKeyRoutes, oauth: OAuthRoutes, accounts: AccountRoutes, pages: AccountPageRoutes, openAPI: OpenAPIRoutes
    let oidc: OIDCAuthorizeRoutes
    let mfa: MFARoutes, mfaLogin: MFALoginRoutes, passkeys: PasskeyRoutes
    let webSignIn: WebSignInRoutes
    let userinfo: OIDCUserinfoRoutes, logout: OIDCLogoutRoutes

    init(server: AuthServer) {
        health = HealthRoutes(store: server.store, metrics: server.metrics, token: server.config.metricsToken)
        location = LocationRoutes(publicURL: server.config.publicURL, pathApp: server.pathApp)
        login = LoginRoutes(server: server)
        sessions = SessionRoutes(server: server)
        profile = ProfileRoutes(afterDeletion: server.afterDeletion)
        apiKeys = APIKeyRoutes()
        oauth = OAuthRoutes(server: server)
        accounts = AccountRoutes(server: server)
        pages = AccountPageRoutes(server: server)
        openAPI = OpenAPIRoutes(config: server.config, logger: server.logger)
        oidc = OIDCAuthorizeRoutes(server: server)
        mfa = MFARoutes()
        mfaLogin = MFALoginRoutes(server: server)
        passkeys = PasskeyRoutes(server: server)
        webSignIn = WebSignInRoutes(server: server)
        userinfo = OIDCUserinfoRoutes(server: server)
        logout = OIDCLogoutRoutes(server: server)
    }
}
