import Testing
@testable import AuthServer
import OIDCProvider

/// The OP browser session's cookie (name, value, attributes, the bounded parser) and the hosted
/// forms' CSRF checks.
@Suite struct OPSessionCookieTests {
    static let token = String(repeating: "A", count: 42) + "b"

    @Test func attributesFollowThePublicURLsScheme() {
        #expect(OPSessionCookie.isSecure(publicURL: "https://auth.example.com") && !OPSessionCookie.isSecure(publicURL: "http://127.0.0.1:8080"))
        #expect(
            OPSessionCookie.setCookie(token: Self.token, app: "myapp-abcde", secure: true, maxAge: 43_200)
                == "__Host-tokentool-op-myapp-abcde=\(Self.token); Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure")
        #expect(
            OPSessionCookie.setCookie(token: Self.token, app: "a.b", secure: false, maxAge: 60)
                == "tokentool-op-a.b=\(Self.token); Max-Age=60; Path=/; HttpOnly; SameSite=Lax")
        #expect(OPSessionCookie.clearCookie(app: "a", secure: true) == "__Host-tokentool-op-a=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure")
        // No Domain: a __Host- cookie may have none, and the session is this host's alone.
        #expect(!OPSessionCookie.setCookie(token: Self.token, app: "a", secure: true, maxAge: 1).contains("Domain"))
    }

    @Test func theParserPicksTheExactNameAndAWellFormedValue() {
        let other = String(repeating: "z", count: 43)
        func token(_ headers: [String], app: String = "app", secure: Bool = true) -> String? {
            OPSessionCookie.token(in: headers, app: app, secure: secure)
        }
        #expect(token(["a=1; __Host-tokentool-op-app=\(Self.token); b=2"]) == Self.token)
        #expect(token(["a=1", " __Host-tokentool-op-app = \(Self.token) "]) == Self.token)
        // Over https the bare name (which a sibling host or plain http can set) does not count.
        #expect(token(["tokentool-op-app=\(Self.token)"]) == nil)
        #expect(token(["tokentool-op-app=\(Self.token)"], secure: false) == Self.token)
        // Another app's cookie, or a name that merely starts alike, is not this app's.
        #expect(token(["__Host-tokentool-op-app2=\(other); __Host-tokentool-op-ap=\(other)"]) == nil)
        // A malformed value is skipped for a well-formed one of the same name.
        #expect(token(["__Host-tokentool-op-app=short; __Host-tokentool-op-app=\(other)"]) == other)
        #expect(token(["__Host-tokentool-op-app=\(Self.token)x"]) == nil)
        #expect(token(["__Host-tokentool-op-app=\(String(repeating: "+", count: 43))"]) == nil)
    }

    @Test func theParserIsBounded() {
        let wanted = "__Host-tokentool-op-app=\(Self.token)"
        let noise = (0..<70).map { "n\($0)=v" }.joined(separator: "; ")
        #expect(OPSessionCookie.token(in: [noise + "; " + wanted], app: "app", secure: true) == nil)
        let long = String(repeating: "x", count: 9000) + "=1; " + wanted
        #expect(OPSessionCookie.token(in: [long], app: "app", secure: true) == nil)
        #expect(OPSessionCookie.token(in: Array(repeating: "a=1", count: 8) + [wanted], app: "app", secure: true) == nil)
        #expect(OPSessionCookie.token(in: Array(repeating: "a=1", count: 7) + [wanted], app: "app", secure: true) == Self.token)
    }

    @Test func csrfTokensMatchOnlyThemselves() throws {
        let a = try OIDCCSRF.make(), b = try OIDCCSRF.make()
        #expect(a.utf8.count == 43 && a != b)
        #expect(OIDCCSRF.matches(a, expected: a))
        #expect(!OIDCCSRF.matches(b, expected: a) && !OIDCCSRF.matches(nil, expected: a) && !OIDCCSRF.matches("", expected: ""))
        #expect(!OIDCCSRF.matches(String(a.dropLast()), expected: a))
    }

    @Test func postsFromAnotherSiteAreRefused() {
        let url = "https://Auth.example.com:443/base"
        #expect(OIDCCSRF.isSameOriginPost(origin: "https://auth.example.com", secFetchSite: nil, publicURL: url))
        #expect(OIDCCSRF.isSameOriginPost(origin: nil, secFetchSite: "same-origin", publicURL: url))
        #expect(OIDCCSRF.isSameOriginPost(origin: nil, secFetchSite: nil, publicURL: url))
        #expect(!OIDCCSRF.isSameOriginPost(origin: "https://evil.example", secFetchSite: nil, publicURL: url))
        #expect(!OIDCCSRF.isSameOriginPost(origin: "null", secFetchSite: nil, publicURL: url))
        #expect(!OIDCCSRF.isSameOriginPost(origin: "https://auth.example.com", secFetchSite: "cross-site", publicURL: url))
        #expect(!OIDCCSRF.isSameOriginPost(origin: nil, secFetchSite: "same-site", publicURL: url))
        #expect(OIDCCSRF.isSameOriginPost(origin: "http://127.0.0.1:8080", secFetchSite: nil, publicURL: "http://127.0.0.1:8080"))
    }
}
