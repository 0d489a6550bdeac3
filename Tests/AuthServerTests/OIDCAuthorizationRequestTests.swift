import AuthServer
import Foundation
import JOSE
import Testing
import OIDCProvider

/// The authorization request's checks (RFC 6749 §4.1.1 and §4.1.2.1, RFC 7636, OIDC Core
/// §3.1.2), before any browser session is looked at.
@Suite("OIDC: the authorization request")
struct OIDCAuthorizationRequestTests {
    static let issuer = "https://auth.example.com"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    static let clients: [String: OIDCClientConfig] = [
        "portal": OIDCClientConfig(
            id: "portal", app: "a", secret: Array("s".utf8), redirectURIs: ["https://portal.example.com/cb"], scopes: ["openid", "email"]),
        "two": OIDCClientConfig(id: "two", app: "a", secret: Array("s".utf8), redirectURIs: ["https://two.example/a?x=1", "https://two.example/b"]),
        "spa": OIDCClientConfig(id: "spa", app: "a", secret: nil, redirectURIs: ["http://localhost/cb"]),
        "strict": OIDCClientConfig(id: "strict", app: "a", secret: Array("s".utf8), redirectURIs: ["https://s.example/cb"], requirePKCE: true),
    ]

    static func parse(_ query: String) -> OIDCAuthorizationOutcome {
        let pairs = query.split(separator: "&").map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (name: String(kv[0]), value: kv.count > 1 ? (String(kv[1]).removingPercentEncoding ?? "") : "")
        }
        return OIDCAuthorizationRequest.parse(pairs, clients: clients, issuer: issuer)
    }

    static func valid(_ query: String) throws -> OIDCAuthorizationRequest {
        guard case .valid(let r) = parse(query) else { throw TokenError(.invalidInput, "not valid: \(parse(query))") }
        return r
    }

    @Test(
        "an unknown client, or a redirect URI that is missing among several, repeated or unregistered: the error page, never a redirect",
        arguments: [
            "response_type=code&redirect_uri=https%3A%2F%2Fportal.example.com%2Fcb",
            "response_type=code&client_id=nobody&redirect_uri=https%3A%2F%2Fportal.example.com%2Fcb",
            "response_type=code&client_id=portal&client_id=portal",
            "response_type=code&client_id=portal&redirect_uri=https%3A%2F%2Fevil.example%2Fcb",
            "response_type=code&client_id=portal&redirect_uri=https%3A%2F%2Fportal.example.com%2Fcb%2F",
            "response_type=code&client_id=portal&redirect_uri=https%3A%2F%2Fportal.example.com%2Fcb&redirect_uri=https%3A%2F%2Fportal.example.com%2Fcb",
            "response_type=code&client_id=two",
            "client_id=two&scope=openid",
            "request=x&client_id=portal&redirect_uri=https%3A%2F%2Fevil.example%2Fcb",
            "client_id=spa&redirect_uri=http%3A%2F%2Flocalhost%3A9%2Fcb2",
            "client_id=spa&redirect_uri=https%3A%2F%2Flocalhost%3A9%2Fcb",
        ])
    func errorPage(query: String) {
        guard case .errorPage = Self.parse(query) else {
            Issue.record("not the error page: \(Self.parse(query))")
            return
        }
    }

    @Test(
        "every other fault redirects with error, error_description, state and iss",
        arguments: [
            ("client_id=portal&state=xyz", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=token", "unsupported_response_type"),
            ("client_id=portal&state=xyz&response_type=code%20id_token", "unsupported_response_type"),
            ("client_id=portal&state=xyz&response_type=code&request=eyJ", "request_not_supported"),
            ("client_id=portal&state=xyz&response_type=code&request_uri=https%3A%2F%2Fx", "request_uri_not_supported"),
            ("client_id=portal&state=xyz&response_type=code&registration=%7B%7D", "registration_not_supported"),
            ("client_id=portal&state=xyz&response_type=code&scope=openid&scope=email", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&response_mode=fragment", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&code_challenge=\(challenge)&code_challenge_method=plain", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&code_challenge=\(challenge)", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&code_challenge_method=S256", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&code_challenge=short&code_challenge_method=S256", "invalid_request"),
            ("client_id=spa&state=xyz&response_type=code", "invalid_request"),
            ("client_id=spa&state=xyz&response_type=code&code_challenge=\(challenge)&code_challenge_method=plain", "invalid_request"),
            ("client_id=strict&state=xyz&response_type=code", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&prompt=none%20login", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&prompt=sometimes", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&max_age=-1", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&max_age=1e3", "invalid_request"),
            ("client_id=portal&state=xyz&response_type=code&nonce=\(String(repeating: "n", count: 1025))", "invalid_request"),
        ])
    func redirectError(query: String, error: String) throws {
        guard case .redirect(let e) = Self.parse(query) else {
            Issue.record("not a redirect: \(Self.parse(query))")
            return
        }
        #expect(e.error == error && e.state == "xyz" && e.issuer == Self.issuer)
        let location = try #require(URLComponents(string: e.location))
        let items = Dictionary(uniqueKeysWithValues: (location.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items["error"] == error && items["state"] == "xyz" && items["iss"] == Self.issuer && items["error_description"]?.isEmpty == false)
        #expect(e.location.hasPrefix(e.redirectURI + "?"))
    }

    @Test("a state over 1024 bytes is refused, and not echoed")
    func longState() {
        guard case .redirect(let e) = Self.parse("client_id=portal&response_type=code&state=" + String(repeating: "s", count: 1025)) else {
            Issue.record("not a redirect")
            return
        }
        #expect(e.error == "invalid_request" && e.state == nil && !e.location.contains("state="))
    }

    @Test("a valid request: the only redirect URI by default, scopes filtered, every parameter kept; unknown ones ignored")
    func valid() throws {
        let r = try Self.valid(
            "client_id=portal&response_type=code&scope=openid%20profile%20email%20address%20email&state=af0ifjsldkj&nonce=n-0S6"
                + "&prompt=consent%20login&max_age=300&login_hint=jane%40example.com&id_token_hint=eyJ.x.y&acr_values=urn%3Atokentool%3Aacr%3Amfa"
                + "&display=page&ui_locales=fr&claims_locales=fr&claims=%7B%7D&whatever=1&code_challenge=\(Self.challenge)&code_challenge_method=S256"
        )
        #expect(r.client.id == "portal" && r.redirectURI == "https://portal.example.com/cb" && !r.redirectURIWasSent)
        #expect(r.scopes == ["openid", "email"] && r.isOpenID)
        #expect(r.state == "af0ifjsldkj" && r.nonce == "n-0S6" && r.prompt == [.consent, .login] && r.maxAge == 300)
        #expect(r.loginHint == "jane@example.com" && r.idTokenHint == "eyJ.x.y" && r.acrValues == ["urn:tokentool:acr:mfa"])
        #expect(r.codeChallenge == Self.challenge)
    }

    @Test("a public client with S256; a loopback redirect URI keeps the port it was sent with")
    func publicClient() throws {
        let r = try Self.valid(
            "client_id=spa&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A51004%2Fcb&code_challenge=\(Self.challenge)&code_challenge_method=S256"
        )
        #expect(r.redirectURI == "http://localhost:51004/cb" && r.redirectURIWasSent && r.state == nil && r.scopes.isEmpty && !r.isOpenID)
        #expect(r.prompt.isEmpty && r.maxAge == nil && r.codeChallenge == Self.challenge)
        #expect(
            r.successLocation(code: "c/1+", issuer: Self.issuer)
                == "http://localhost:51004/cb?code=c%2F1%2B&iss=https%3A%2F%2Fauth.example.com")
    }

    @Test("a redirect URI with a query keeps it; an empty parameter is an absent one; select_account is ignored")
    func queryKept() throws {
        let r = try Self.valid("client_id=two&response_type=code&redirect_uri=https%3A%2F%2Ftwo.example%2Fa%3Fx%3D1&state=&prompt=select_account")
        #expect(r.state == nil && r.prompt.isEmpty)
        #expect(r.successLocation(code: "abc", issuer: "i") == "https://two.example/a?x=1&code=abc&iss=i")
        let e = r.error("access_denied", "the user said \"no\"", issuer: "i")
        #expect(e.location == "https://two.example/a?x=1&error=access_denied&error_description=the%20user%20said%20no&iss=i")
    }
}
