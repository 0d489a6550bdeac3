import Foundation
import OIDCProvider

/// The OpenID Provider's hosted pages: login, consent, the error page and the signed-out page.
/// Rendering only; the authorization and end-session endpoints serve them.
///
/// The same HTML, stylesheet and escaping as ``AccountPages``: no inline script, every value
/// escaped, a CSRF token (``OIDCCSRF``) in every form. The one script is ``PasskeyScript``, served
/// from the server's own origin to the pages with a passkey button; nothing else needs it. The login and consent forms have no `action`: they
/// post to the page's own URL, which names the flow (``OIDCFlowHandle``); only a login page shown
/// at a web sign-in's callback (a provider's refusal) names its flow's URL. The web sign-in
/// buttons are plain links (GET) to the server's own start routes, so that the policy's
/// `form-action` need not name Google, Apple or Facebook. Served with ``headers(redirectURI:script:)``.
public enum OIDCPages {
    /// What a page shows.
    public enum Page: Sendable, Hashable {
        case login(Login)
        /// The login's second step: the code of the account's second factor.
        case secondFactor(SecondFactor)
        case consent(Consent)
        /// A request that cannot go back to the client (an unknown client, a redirect URI that is
        /// missing or not registered, an unknown, used or expired flow): the message, and no link.
        case error(message: String)
        /// The end-session endpoint ended the session and has nowhere registered to send the browser.
        case signedOut
        /// A logout the server cannot tell came from the client (no `id_token_hint`): the user
        /// confirms it with a post of `fields` (the request's parameters) and the CSRF token.
        case confirmLogout(csrf: String, fields: [String: String])
    }

    /// The login form.
    public struct Login: Sendable, Hashable {
        /// The client the user signs in to (its configured `name`).
        public var clientName: String
        /// The form's ``OIDCCSRF`` token.
        public var csrf: String
        /// The email to prefill: the request's `login_hint`, or what was typed before a refusal.
        public var email: String?
        public var message: LoginMessage?
        /// One link per web sign-in provider of the app, in the order shown.
        public var providers: [WebSignInButton]
        /// Where the form posts when the page is shown at another URL than its own (after a web
        /// sign-in's callback: the flow's login page URL); `nil`: to the page's own URL.
        public var action: String?
        /// The passkey options URL of the flow when the app signs in with passkeys: the page then
        /// has the "Sign in with a passkey" button (``PasskeyScript``).
        public var passkeyOptions: String?

        public init(
            clientName: String, csrf: String, email: String? = nil, message: LoginMessage? = nil, providers: [WebSignInButton] = [],
            action: String? = nil, passkeyOptions: String? = nil
        ) {
            self.clientName = clientName
            self.csrf = csrf
            self.email = email
            self.message = message
            self.providers = providers
            self.action = action
            self.passkeyOptions = passkeyOptions
        }
    }

    /// The second step of a password sign-in for an account with a second factor: one field for
    /// a TOTP code or a recovery code, and the password step's single-use token; it posts to the
    /// login page's own URL.
    public struct SecondFactor: Sendable, Hashable {
        public var clientName: String
        /// The form's ``OIDCCSRF`` token (the flow's).
        public var csrf: String
        /// The password step's token (a hidden field).
        public var token: String
        /// ``LoginMessage/wrongCode`` or ``LoginMessage/wait(seconds:)``, or none.
        public var message: LoginMessage?
        /// Where the form posts when the page is shown at another URL than the login page's (at a
        /// web sign-in's callback: the flow's login page URL); `nil`: to the page's own URL.
        public var action: String?
        /// The passkey options URL of the flow when the user has a passkey: the page then has a
        /// "Use a passkey" button (``PasskeyScript``).
        public var passkeyOptions: String?
        /// Whether the user has codes to type (TOTP, or recovery codes): the page then has the code
        /// field; a user with passkeys alone gets the passkey button only.
        public var codes: Bool

        public init(
            clientName: String, csrf: String, token: String, message: LoginMessage? = nil, action: String? = nil, passkeyOptions: String? = nil,
            codes: Bool = true
        ) {
            self.clientName = clientName
            self.csrf = csrf
            self.token = token
            self.message = message
            self.action = action
            self.passkeyOptions = passkeyOptions
            self.codes = codes
        }
    }

    /// The name of the second step's hidden field that carries the password step's token.
    public static let secondStepField = "mfa_token"
    /// The name of the second step's code field.
    public static let codeField = "code"
    /// The name of the passkey form's field: the assertion as WebAuthn's JSON.
    public static let passkeyField = "passkey"

    /// Why the login page comes back.
    public enum LoginMessage: Sendable, Hashable {
        /// One message for an unknown email and a wrong password alike.
        case wrongCredentials
        /// The address was never confirmed.
        case confirmFirst
        /// Throttled, or the password hasher is busy: try again in `seconds`.
        case wait(seconds: Int)
        /// The form came back without its CSRF token, or with another: the page is shown afresh.
        case expiredForm
        /// A web sign-in provider refused, or its answer was refused: a readable message (no secret).
        case upstream(String)
        /// The client asked for another user (`id_token_hint`) than the one who signed in.
        case otherAccount
        /// The account is disabled.
        case disabled
        /// The second step's code was wrong, used or stale.
        case wrongCode
        /// A passkey's assertion was refused.
        case passkeyRefused
    }

    /// A "Continue with …" link of the login page.
    public struct WebSignInButton: Sendable, Hashable {
        /// The provider's name as people know it (its login method's ``WebSignInMethod/title``).
        public var title: String
        /// Where the link goes: the server's own route that starts the provider's flow for this
        /// login flow (a path below `public_url`, or an absolute URL of it).
        public var href: String

        public init(title: String, href: String) {
            self.title = title
            self.href = href
        }

        /// The button's text.
        public var label: String { "Continue with " + title }
    }

    /// The consent form.
    public struct Consent: Sendable, Hashable {
        public var clientName: String
        public var csrf: String
        /// The scopes asked for (``OIDCClientConfig/knownScopes`` values), in request order.
        public var scopes: [String]
        /// Who is signed in, when an email is known.
        public var email: String?

        public init(clientName: String, csrf: String, scopes: [String], email: String? = nil) {
            self.clientName = clientName
            self.csrf = csrf
            self.scopes = scopes
            self.email = email
        }
    }

    /// The name of the hidden field that carries the CSRF token.
    public static let csrfField = "csrf"
    /// The consent form's answer field and its two values.
    public static let decisionField = "decision"
    public static let allow = "allow"
    public static let deny = "deny"

    /// What a scope lets the client have, as the consent page says it.
    public static func describe(scope: String) -> String {
        switch scope {
        case "openid": "Know who you are (your user id)"
        case "profile": "Your name and picture"
        case "email": "Your email address"
        case "offline_access": "Keep access while you are away"
        default: scope
        }
    }

    /// The status a page is served with: 400 for the error page, 429 for a throttled login, else 200.
    public static func status(of page: Page) -> Int {
        switch page {
        case .error: 400
        case .login(let login) where login.message.map({ if case .wait = $0 { true } else { false } }) == true: 429
        case .secondFactor(let step) where step.message.map({ if case .wait = $0 { true } else { false } }) == true: 429
        default: 200
        }
    }

    /// The page as a complete HTML document. `app` is the app's name as shown to people.
    public static func render(_ page: Page, app: String) -> String {
        let escape = AccountPages.escape
        switch page {
        case .error(let message):
            return AccountPages.document(
                title: "Cannot sign in", app: app,
                body: "<p class=\"error\" id=\"problem\">\(escape(message))</p><p>Go back to the app you came from and try again.</p>")
        case .signedOut:
            return AccountPages.document(title: "Signed out", app: app, body: "<p class=\"ok\">You are signed out. You can close this page.</p>")
        case .confirmLogout(let csrf, let fields):
            let hidden = fields.sorted { $0.key < $1.key }.map {
                "<input type=\"hidden\" name=\"\(escape($0.key))\" value=\"\(escape($0.value))\">"
            }.joined()
            return AccountPages.document(
                title: "Sign out?", app: app,
                body: """
                    <p>Do you want to sign out?</p><form method="post">\(csrfInput(csrf))\(hidden)\
                    <button type="submit" name="\(decisionField)" value="\(allow)">Sign out</button></form>
                    """)
        case .consent(let c):
            let who = c.email.map { "<p>Signed in as <strong>\(escape($0))</strong>.</p>" } ?? ""
            let items = c.scopes.map { "<li>\(escape(describe(scope: $0)))</li>" }.joined()
            return AccountPages.document(
                title: "Allow access?", app: app,
                body: """
                    \(who)<p><strong id="client">\(escape(c.clientName))</strong> asks for:</p><ul id="scopes">\(items)</ul>\
                    <form method="post">\(csrfInput(c.csrf))\
                    <button type="submit" name="\(decisionField)" value="\(allow)">Allow</button>\
                    <button type="submit" class="alt" name="\(decisionField)" value="\(deny)">Deny</button></form>
                    """)
        case .secondFactor(let f):
            let message = f.message.map { "<p class=\"error\" id=\"problem\">\(escape(text(of: $0)))</p>" } ?? ""
            let action = f.action.map { " action=\"\(escape($0))\"" } ?? ""
            let passkey = passkeyForm(f.passkeyOptions, csrf: f.csrf, token: f.token, action: action, label: "Use a passkey")
            guard f.codes else {
                // Passkeys alone: nothing to type; the button needs the script.
                return AccountPages.document(
                    title: "Second step", app: app,
                    body: """
                        \(message)<p>to continue to <strong id="client">\(escape(f.clientName))</strong>: use your passkey.</p>\
                        <noscript><p class="error">Using a passkey needs JavaScript in this browser.</p></noscript>\(passkey)
                        """)
            }
            return AccountPages.document(
                title: "Second step", app: app,
                body: """
                    \(message)<p>to continue to <strong id="client">\(escape(f.clientName))</strong>: enter the code from your \
                    authenticator app, or one of your recovery codes\(f.passkeyOptions == nil ? "" : ", or use your passkey").</p>\
                    <form method="post"\(action)>\(csrfInput(f.csrf))\
                    <input type="hidden" name="\(secondStepField)" value="\(escape(f.token))">\
                    <label for="code">Code</label>\
                    <input type="text" id="code" name="\(codeField)" autocomplete="one-time-code" required maxlength="64" autofocus>\
                    <button type="submit">Continue</button></form>\(passkey)
                    """)
        case .login(let l):
            let message = l.message.map { "<p class=\"error\" id=\"problem\">\(escape(text(of: $0)))</p>" } ?? ""
            let action = l.action.map { " action=\"\(escape($0))\"" } ?? ""
            let buttons = l.providers.map { "<a class=\"alt\" href=\"\(escape($0.href))\">\(escape($0.label))</a>" }.joined()
            return AccountPages.document(
                title: "Sign in", app: app,
                body: """
                    \(message)<p>to continue to <strong id="client">\(escape(l.clientName))</strong></p>\
                    <form method="post"\(action)>\(csrfInput(l.csrf))\
                    <label for="email">Email</label>\
                    <input type="email" id="email" name="email" autocomplete="username" required maxlength="320" value="\(escape(l.email ?? ""))">\
                    <label for="password">Password</label>\
                    <input type="password" id="password" name="password" autocomplete="current-password" required maxlength="512">\
                    <button type="submit">Sign in</button></form>\(buttons)\
                    \(passkeyForm(l.passkeyOptions, csrf: l.csrf, token: nil, action: action, label: "Sign in with a passkey"))
                    """)
        }
    }

    /// The passkey button, its hidden form (posting like the page's own) and the script; nothing without `options`.
    private static func passkeyForm(_ options: String?, csrf: String, token: String?, action: String, label: String) -> String {
        guard let options else { return "" }
        let escape = AccountPages.escape
        let step = token.map { "<input type=\"hidden\" name=\"\(secondStepField)\" value=\"\(escape($0))\">" } ?? ""
        return """
            <form method="post" id="passkey-form"\(action) hidden>\(csrfInput(csrf))\(step)<input type="hidden" name="\(passkeyField)"></form>\
            <button type="button" class="alt" id="passkey" data-options="\(escape(options))" hidden>\(escape(label))</button>\
            <p class="error" id="passkey-problem" hidden></p><script src="\(PasskeyScript.path)"></script>
            """
    }

    /// Whether a page runs ``PasskeyScript`` (its policy then allows the server's own scripts and fetches).
    public static func hasScript(_ page: Page) -> Bool {
        switch page {
        case .login(let l): l.passkeyOptions != nil
        case .secondFactor(let f): f.passkeyOptions != nil
        default: false
        }
    }

    private static func csrfInput(_ token: String) -> String {
        "<input type=\"hidden\" name=\"\(csrfField)\" value=\"\(AccountPages.escape(token))\">"
    }

    /// The login page's message.
    static func text(of message: LoginMessage) -> String {
        switch message {
        case .wrongCredentials: "The email or password is wrong."
        case .confirmFirst: "Confirm your email address first: open the link in the mail we sent you."
        case .wait(let seconds): "Too many attempts: wait \(seconds) seconds, then try again."
        case .expiredForm: "The form had expired. Please sign in again."
        case .upstream(let why): why
        case .otherAccount: "The app asked for another account: sign in with that one."
        case .disabled: "This account is disabled."
        case .wrongCode: "The code is wrong, already used or too old."
        case .passkeyRefused: "The passkey was not accepted. Try again, or sign in another way."
        }
    }
}
