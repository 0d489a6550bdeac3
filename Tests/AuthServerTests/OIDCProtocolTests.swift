import AuthServer
import Foundation
import Identity
import JOSE
import Testing
import OIDCProvider

/// The OpenID Connect pieces that need no route or store, against the specifications' text and vectors.
@Suite("OIDC: redirect URIs, PKCE, at_hash, ID token claims, discovery")
struct OIDCProtocolTests {
    @Test(
        "redirect URIs match exactly, but for a loopback host's port (RFC 8252 §7.3)",
        arguments: [
            ("https://app.example.com/cb", "https://app.example.com/cb", true),
            ("https://app.example.com/cb", "https://app.example.com/cb/", false),
            ("https://app.example.com/cb", "https://app.example.com/cb?x=1", false),
            ("https://app.example.com/cb", "https://APP.example.com/cb", false),
            ("https://app.example.com/cb", "https://app.example.com:443/cb", false),
            ("https://app.example.com/cb", "https://app.example.com:8443/cb", false),
            ("https://app.example.com/cb", "https://app.example.com/cb#x", false),
            ("https://app.example.com/cb", "https://app.example.com.evil.example/cb", false),
            ("https://app.example.com/cb", "https://evil.example@app.example.com/cb", false),
            ("https://app.example.com/c", "https://app.example.com/cb", false),
            ("http://localhost/cb", "http://localhost:51004/cb", true),
            ("http://localhost:5173/cb", "http://localhost:40000/cb", true),
            ("http://localhost:5173/cb", "http://localhost/cb", true),
            ("http://127.0.0.1/cb", "http://127.0.0.1:8080/cb", true),
            ("http://[::1]/cb", "http://[::1]:8080/cb", true),
            ("http://[::1]:1/cb", "http://[::1]/cb", true),
            ("http://127.0.0.1/cb", "http://localhost:8080/cb", false),
            ("http://127.0.0.1/cb", "https://127.0.0.1:8080/cb", false),
            ("http://127.0.0.1/cb", "http://127.0.0.1:8080/cb2", false),
            ("http://127.0.0.1/cb", "http://127.0.0.1:8080/cb?a=b", false),
            ("http://127.0.0.1/cb", "http://127.0.0.1:/cb", false),
            ("http://127.0.0.1/cb", "http://127.0.0.1:80a/cb", false),
            ("http://127.0.0.1/cb", "http://evil@127.0.0.1:80/cb", false),
            ("http://localhost/cb", "http://localhost.evil.example:80/cb", false),
            ("https://app.example.com:8443/cb", "https://app.example.com:9443/cb", false),
        ])
    func redirectMatching(registered: String, requested: String, matches: Bool) {
        #expect(OIDCRedirectURI.matches(registered: registered, requested: requested) == matches)
    }

    @Test("RFC 7636 Appendix B: the verifier's S256 challenge, and what verify accepts")
    func pkceVector() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        #expect(PKCE.challenge(forVerifier: verifier) == challenge)
        #expect(PKCE.verify(verifier: verifier, challenge: challenge))
        #expect(PKCE.isValidChallenge(challenge))
        // `plain` would compare the verifier itself: never accepted.
        #expect(!PKCE.verify(verifier: verifier, challenge: verifier))
        #expect(!PKCE.verify(verifier: String(verifier.dropLast()) + "j", challenge: challenge))
        #expect(!PKCE.verify(verifier: verifier, challenge: String(challenge.dropLast()) + "d"))
    }

    @Test("RFC 7636 §4.1: a verifier is 43 to 128 unreserved characters")
    func verifierShape() {
        #expect(PKCE.isValidVerifier(String(repeating: "a", count: 43)))
        #expect(PKCE.isValidVerifier(String(repeating: "~", count: 128)))
        #expect(PKCE.isValidVerifier("AZaz09-._~" + String(repeating: "x", count: 33)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
        for bad in ["+", "/", "=", " ", "%", "é"] {
            #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + bad), "\(bad)")
        }
        // A verifier of the wrong shape is refused even when its challenge was computed from it.
        let short = String(repeating: "a", count: 42)
        #expect(!PKCE.verify(verifier: short, challenge: PKCE.challenge(forVerifier: short)))
        #expect(!PKCE.isValidChallenge(String(repeating: "a", count: 44)))
        #expect(!PKCE.isValidChallenge(String(repeating: "a", count: 42) + "="))
    }

    @Test("OIDC Core §3.1.3.6 at_hash: the spec's Appendix A.3 vector, and SHA-384 by the alg")
    func atHash() {
        // OpenID Connect Core 1.0, Appendix A.3: this access token's ID token has at_hash 77QmUPtjPfzWtF2AnpK9RQ.
        #expect(OIDCClaims.atHash(accessToken: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .rs256) == "77QmUPtjPfzWtF2AnpK9RQ")
        #expect(OIDCClaims.atHash(accessToken: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .es256) == "77QmUPtjPfzWtF2AnpK9RQ")
        // python3: base64.urlsafe_b64encode(hashlib.sha384(b"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.sig").digest()[:24])
        #expect(OIDCClaims.atHash(accessToken: "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.sig", algorithm: .es384) == "MYzxeMSofO0wUbPWvO0AAmH6-YKVa9Sm")
        // python3: the same with hashlib.sha256 and [:16]
        #expect(OIDCClaims.atHash(accessToken: "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiIxIn0.sig", algorithm: .rs256) == "e9foEJAUDyXZLidFiS4Efg")
    }

    static let user = OIDCUserClaims(
        name: "Jane Doe", givenName: "Jane", familyName: "Doe", picture: "https://example.com/jane.jpg", email: "jane@example.com",
        emailVerified: true)

    static func content(scopes: [String], nonce: String? = "n-0S6_WzA2Mj", amr: [String] = ["pwd"], user: OIDCUserClaims = user) -> IDTokenContent {
        IDTokenContent(
            issuer: "https://auth.example.com/", subject: "248289761001", clientID: "s6BhdRkqt3", issuedAt: 1_311_280_970,
            expiresAt: 1_311_281_970, authTime: 1_311_280_969, nonce: nonce, accessToken: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y",
            algorithm: .rs256, sessionID: "op-session-1", amr: amr, scopes: scopes, user: user)
    }

    @Test("an ID token holds every claim OIDC Core §2 and the scopes ask for")
    func idTokenClaims() throws {
        let claims = OIDCClaims.idToken(Self.content(scopes: ["openid", "profile", "email"]))
        let expected: JSONObject = [
            "iss": "https://auth.example.com/", "sub": "248289761001", "aud": "s6BhdRkqt3", "azp": "s6BhdRkqt3", "exp": 1_311_281_970,
            "iat": 1_311_280_970, "auth_time": 1_311_280_969, "nonce": "n-0S6_WzA2Mj", "at_hash": "77QmUPtjPfzWtF2AnpK9RQ",
            "sid": "op-session-1", "amr": ["pwd"], "acr": "urn:tokentool:acr:pwd", "name": "Jane Doe", "given_name": "Jane",
            "family_name": "Doe", "picture": "https://example.com/jane.jpg", "email": "jane@example.com", "email_verified": true,
        ]
        #expect(claims == ClaimSet(expected))
        #expect(claims.audience == ["s6BhdRkqt3"] && claims.issuer == "https://auth.example.com/")
        // Every claim the builder can write is announced by discovery.
        #expect(Set(claims.object.keys).isSubset(of: Set(OIDCClaims.supported)))
    }

    @Test("without profile or email, and on a refresh (no nonce), only the protocol claims; mfa gives the mfa acr")
    func idTokenWithoutScopes() {
        let claims = OIDCClaims.idToken(Self.content(scopes: ["openid"], nonce: nil, amr: ["pwd", "otp", "mfa"]))
        #expect(
            claims.object.keys.sorted() == ["acr", "amr", "at_hash", "aud", "auth_time", "azp", "exp", "iat", "iss", "sid", "sub"])
        #expect(claims["acr"] == "urn:tokentool:acr:mfa" && claims["amr"] == ["pwd", "otp", "mfa"])
        #expect(OIDCClaims.acr(amr: ["fed"]) == "urn:tokentool:acr:pwd" && OIDCClaims.acr(amr: ["hwk"]) == "urn:tokentool:acr:pwd")
    }

    @Test("unknown profile members are left out; email_verified only beside an email")
    func partialProfile() {
        let user = OIDCUserClaims(name: "Jane", email: nil, emailVerified: true)
        #expect(OIDCClaims.scopeClaims(user, scopes: ["profile", "email"]) == ["name": "Jane"])
        #expect(
            OIDCClaims.scopeClaims(OIDCUserClaims(email: "j@example.com"), scopes: ["email"]) == ["email": "j@example.com", "email_verified": false])
        #expect(OIDCClaims.userinfo(subject: "u1", user: Self.user, scopes: ["openid"]) == ["sub": "u1"])
        #expect(
            OIDCClaims.userinfo(subject: "u1", user: Self.user, scopes: ["email"]) == [
                "sub": "u1", "email": "jane@example.com", "email_verified": true,
            ])
    }

    @Test("a provider's identity gives its profile claims")
    func fromIdentity() {
        let identity = Identity(
            provider: "google", subject: "1", email: "a@example.com", emailVerified: true, name: "A B", givenName: "A", familyName: "B",
            picture: "https://example.com/a.png")
        #expect(
            OIDCUserClaims(identity)
                == OIDCUserClaims(
                    name: "A B", givenName: "A", familyName: "B", picture: "https://example.com/a.png", email: "a@example.com", emailVerified: true))
    }

    @Test("discovery: every member the provider promises; issuer exactly as configured, endpoints below public_url")
    func discovery() throws {
        let config = try ServerConfig.parse(#"{"public_url":"https://auth.example.com/","apps":{"a":{}}}"#, directory: "/srv")
        let d = OIDCDiscovery.document(config)
        let b = "https://auth.example.com"
        #expect(d["issuer"] == "https://auth.example.com/")
        #expect(d["authorization_endpoint"] == .string(b + "/oauth/authorize") && d["token_endpoint"] == .string(b + "/oauth/token"))
        #expect(d["userinfo_endpoint"] == .string(b + "/oauth/userinfo") && d["end_session_endpoint"] == .string(b + "/oauth/logout"))
        #expect(d["jwks_uri"] == .string(b + "/.well-known/jwks.json"))
        #expect(d["introspection_endpoint"] == .string(b + "/oauth/introspect") && d["revocation_endpoint"] == .string(b + "/oauth/revoke"))
        #expect(d["scopes_supported"] == ["openid", "profile", "email", "offline_access"])
        #expect(d["response_types_supported"] == ["code"] && d["response_modes_supported"] == ["query"])
        #expect(d["grant_types_supported"] == ["authorization_code", "refresh_token"] && d["subject_types_supported"] == ["public"])
        #expect(d["id_token_signing_alg_values_supported"] == ["RS256", "ES256"])
        #expect(d["token_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post", "none"])
        #expect(d["code_challenge_methods_supported"] == ["S256"] && d["prompt_values_supported"] == ["none", "login", "consent"])
        // acr_values is honoured (urn:tokentool:acr:mfa asks for a step-up), so discovery says which values exist.
        #expect(d["acr_values_supported"] == ["urn:tokentool:acr:mfa", "urn:tokentool:acr:pwd"])
        #expect(d["authorization_response_iss_parameter_supported"] == true)
        #expect(d["request_parameter_supported"] == false && d["request_uri_parameter_supported"] == false)
        // An OpenID Connect client authenticates at revocation and introspection as at the token endpoint.
        #expect(d["revocation_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post", "none"])
        #expect(d["introspection_endpoint_auth_methods_supported"] == ["client_secret_basic", "client_secret_post"])
        let claims = try #require(d["claims_supported"]?.arrayValue)
        #expect(claims.count == 18 && claims.contains("at_hash") && claims.contains("email_verified"))
        // Without a trailing slash, the issuer has none either.
        let plain = try ServerConfig.parse(#"{"public_url":"https://auth.example.com/base","apps":{"a":{}}}"#, directory: "/srv")
        #expect(OIDCDiscovery.document(plain)["issuer"] == "https://auth.example.com/base")
        #expect(OIDCDiscovery.document(plain)["authorization_endpoint"] == "https://auth.example.com/base/oauth/authorize")
    }
}
