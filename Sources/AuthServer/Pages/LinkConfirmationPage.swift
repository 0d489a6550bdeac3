/// The hosted page of a link through the redirect flow (`PUBLIC_URL/oauth/link?flow=…`): it says
/// which account the provider's identity will join, and goes on only when the user presses its
/// button (a form posting to the page's own URL with the CSRF token), so that a link started by
/// someone else and sent to a victim cannot join the victim's provider account silently.
/// Rendering only, as ``OIDCPages``; served by ``WebSignInRoutes``.
public struct LinkConfirmationPage: Sendable, Hashable {
    /// The provider's name ("Google").
    public var provider: String
    /// The account's email, else an identity's, else the user id.
    public var account: String
    /// The app, as the hosted pages name it.
    public var app: String
    /// The form's CSRF token.
    public var csrf: String

    public init(provider: String, account: String, app: String, csrf: String) {
        self.provider = provider
        self.account = account
        self.app = app
        self.csrf = csrf
    }

    /// The page as a complete HTML document.
    public func render() -> String {
        let escape = AccountPages.escape
        return AccountPages.document(
            title: "Link your \(provider) account?", app: app,
            body: """
                <p>This links your \(escape(provider)) account to the account <strong id="account">\(escape(account))</strong> of \
                <strong id="app">\(escape(app))</strong>: signing in with \(escape(provider)) will then sign you in as that account.</p>\
                <p>If you did not ask for this in \(escape(app)), close this page.</p>\
                <form method="post"><input type="hidden" name="\(OIDCPages.csrfField)" value="\(escape(csrf))">\
                <button type="submit" id="continue">Continue with \(escape(provider))</button></form>
                """)
    }
}
