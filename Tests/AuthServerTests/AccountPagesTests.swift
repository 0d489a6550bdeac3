import Foundation
import JOSE
import Testing
@testable import AuthServer
import Sessions

/// The confirm and reset pages: escaping, states, headers.
@Suite struct AccountPagesTests {
    @Test func everythingIsEscaped() {
        #expect(AccountPages.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        let html = AccountPages.render(.resetForm(token: "\"><script>alert(1)</script>", tokenID: "id'", error: nil), app: "<b>App</b>")
        #expect(!html.contains("<script>") && !html.contains("<b>App"))
        #expect(html.contains(#"value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;""#))
        #expect(html.contains("value=\"id&#39;\""))
    }

    @Test func statesSayWhatHappened() {
        #expect(AccountPages.render(.confirmed, app: "A").contains("Your email address is confirmed"))
        #expect(AccountPages.render(.resetDone, app: "A").contains("Your password was changed"))
        #expect(AccountPages.render(.linkProblem(.expired, purpose: .reset), app: "A").contains("This link has expired."))
        #expect(AccountPages.render(.linkProblem(.used, purpose: .confirm), app: "A").contains("This link was already used."))
        #expect(AccountPages.render(.linkProblem(.invalid, purpose: .confirm), app: "A").contains("This link is not valid."))
        #expect(
            AccountPages.render(.resetForm(token: "t", tokenID: "i", error: .tooShort(minimum: 8)), app: "A")
                .contains("The password is too short: use at least 8 characters."))
        #expect(AccountPages.formError(password: "12345", repeated: "12345", minLength: 6) == .tooShort(minimum: 6))
        #expect(AccountPages.formError(password: "123456", repeated: "1234567", minLength: 6) == .mismatch)
        #expect(AccountPages.formError(password: String(repeating: "x", count: 129), repeated: "", minLength: 6) == .tooLong)
        #expect(
            AccountPages.formError(password: "e\u{301}e\u{301}e\u{301}", repeated: "e\u{301}e\u{301}e\u{301}", minLength: 4) == .tooShort(minimum: 4))
        #expect(AccountPages.formError(password: "123456", repeated: "123456", minLength: 6) == nil)
    }

    @Test func headersAllowOnlyThePagesOwnStyle() throws {
        let headers = Dictionary(uniqueKeysWithValues: AccountPages.headers.map { ($0.name, $0.value) })
        #expect(headers["Referrer-Policy"] == "no-referrer")
        #expect(headers["Cache-Control"] == "no-store")
        let csp = try #require(headers["Content-Security-Policy"])
        #expect(csp.hasPrefix("default-src 'none'; ") && !csp.contains("script-src") && !csp.contains("unsafe-inline"))
        #expect(csp.contains("form-action 'self'") && csp.contains("frame-ancestors 'none'"))
        // The style hash in the policy is the hash of the <style> element's text (CSP3 §8.3: SHA-256, base64).
        let html = AccountPages.render(.confirmed, app: "A")
        let style = try #require(
            html.range(of: "<style>").flatMap { open in
                html.range(of: "</style>").map { String(html[open.upperBound..<$0.lowerBound]) }
            })
        #expect(csp.contains("'sha256-\(Data(SHA2.sha256(Array(style.utf8))).base64EncodedString())'"))
        #expect(!html.contains("<script"))
    }
}
