import Foundation
import JOSE
public import Sessions

/// The two pages the mailed links open: confirm-on-load, and the reset form with its outcome.
///
/// Plain HTML and one stylesheet, no script, readable on a phone. Every value is escaped. The
/// pages are served with ``headers``: a Content-Security-Policy that allows nothing but this
/// stylesheet (by its hash) and form posts to the same origin, `Referrer-Policy: no-referrer`
/// (the token in the address never leaves in a Referer), and `Cache-Control: no-store`.
///
/// ```swift
/// let html = AccountPages.render(.resetForm(token: token, tokenID: id, error: nil), app: "My App")
/// ```
public enum AccountPages {
    /// What a page shows.
    public enum Page: Sendable, Hashable {
        /// The confirmation link worked.
        case confirmed
        /// The form for a new password; `error` says what was wrong with the last one.
        case resetForm(token: String, tokenID: String, error: FormError?)
        /// The password was changed.
        case resetDone
        /// The link cannot be used.
        case linkProblem(AccountManager.LinkProblem, purpose: AccountTokenRecord.Purpose)
    }

    /// Why the reset form comes back.
    public enum FormError: Sendable, Hashable {
        case tooShort(minimum: Int)
        case tooLong
        case mismatch
        /// Too many attempts, or too many at once: try again in `seconds`.
        case wait(seconds: Int)
    }

    /// The stylesheet, allowed by its hash in the policy.
    static let style = """
        body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f4f5f7;color:#1c1e21}\
        main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.1)}\
        h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:1rem 0 .25rem;font-weight:600}\
        input{box-sizing:border-box;width:100%;font-size:1rem;padding:.7rem;border:1px solid #bbb;border-radius:8px}\
        button{margin-top:1.25rem;width:100%;font-size:1rem;padding:.8rem;border:0;border-radius:8px;background:#0b5cff;color:#fff}\
        .error{color:#a40000;background:#fdecec;padding:.75rem;border-radius:8px}.ok{color:#0a5d00}\
        a.alt,button.alt{display:block;box-sizing:border-box;margin-top:.75rem;width:100%;text-align:center;padding:.8rem;\
        border:1px solid #bbb;border-radius:8px;background:#fff;color:#1c1e21;text-decoration:none}\
        @media (max-width:30rem){main{margin:0;border-radius:0;min-height:100vh}}
        """

    /// The headers every page is served with: `X-Frame-Options: DENY` beside CSP's
    /// `frame-ancestors 'none'` for browsers and web views that only know the older header (RFC 7034).
    public static var headers: [(name: String, value: String)] {
        let digest = Data(SHA2.sha256(Array(style.utf8))).base64EncodedString()
        return [
            (name: "Content-Type", value: "text/html; charset=utf-8"),
            (
                name: "Content-Security-Policy",
                value: "default-src 'none'; style-src 'sha256-\(digest)'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
            ),
            (name: "Referrer-Policy", value: "no-referrer"),
            (name: "Cache-Control", value: "no-store"),
            (name: "X-Content-Type-Options", value: "nosniff"),
            (name: "X-Frame-Options", value: "DENY"),
        ]
    }

    /// The page as a complete HTML document. `app` is the app's name as shown to people.
    public static func render(_ page: Page, app: String) -> String {
        let title: String, body: String
        switch page {
        case .confirmed:
            title = "Email confirmed"
            body = "<p class=\"ok\">Your email address is confirmed. You can now sign in to \(escape(app)).</p>"
        case .resetDone:
            title = "Password changed"
            body =
                "<p class=\"ok\">Your password was changed, every device was signed out and your API keys were disabled. Sign in to \(escape(app)) with the new password.</p>"
        case .linkProblem(let problem, let purpose):
            title = purpose == .confirm ? "Cannot confirm" : "Cannot reset the password"
            let again = purpose == .confirm ? "Ask the app to send a new confirmation mail." : "Ask the app for a new reset mail."
            let why =
                switch problem {
                case .expired: "This link has expired."
                case .used: "This link was already used."
                case .invalid: "This link is not valid. Check that you opened the whole link from the mail."
                }
            body = "<p class=\"error\" id=\"problem\">\(why)</p><p>\(again)</p>"
        case .resetForm(let token, let tokenID, let error):
            title = "Choose a new password"
            let message: String? =
                switch error {
                case .tooShort(let minimum)?: "The password is too short: use at least \(minimum) characters."
                case .tooLong?: "The password is too long: use at most \(PasswordRule.maxLength) characters."
                case .mismatch?: "The two passwords are not the same."
                case .wait(let seconds)?: "Too many attempts: wait \(seconds) seconds, then try again."
                case nil: nil
                }
            body =
                (message.map { "<p class=\"error\" id=\"problem\">\(escape($0))</p>" } ?? "") + """
                    <form method="post" autocomplete="off">\
                    <input type="hidden" name="token" value="\(escape(token))">\
                    <input type="hidden" name="tokenId" value="\(escape(tokenID))">\
                    <label for="password">New password</label>\
                    <input type="password" id="password" name="password" autocomplete="new-password" required maxlength="512">\
                    <label for="confirm">Repeat it</label>\
                    <input type="password" id="confirm" name="confirm" autocomplete="new-password" required maxlength="512">\
                    <button type="submit">Set the password</button></form>
                    """
        }
        return document(title: title, app: app, body: body)
    }

    /// A complete page: `title` (plain text, escaped here) over `body` (HTML, escaped by the caller).
    static func document(title: String, app: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">\
        <meta name="viewport" content="width=device-width, initial-scale=1">\
        <meta name="referrer" content="no-referrer">\
        <title>\(escape(title)) · \(escape(app))</title><style>\(style)</style></head>\
        <body><main><h1>\(escape(title))</h1>\(body)</main></body></html>
        """
    }

    /// Escapes text for HTML content and double-quoted attributes.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The form error for a password the rule refuses, or a repeat that differs; `nil` when fine.
    public static func formError(password: String, repeated: String, minLength: Int) -> FormError? {
        let count = PasswordRule.length(of: password)
        if count < minLength { return .tooShort(minimum: minLength) }
        if count > PasswordRule.maxLength { return .tooLong }
        return password == repeated ? nil : .mismatch
    }
}
