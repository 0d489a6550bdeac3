import AuthServer
import Foundation
import JOSE
import Testing
import OIDCProvider

/// `clients` entries with `redirect_uris`: the OpenID Connect relying parties of docs/oidc.md.
@Suite("Config: OpenID Connect clients")
struct OIDCClientConfigTests {
    /// A config whose `clients` is `clients`, with the apps `myapp` and `other`.
    static func config(_ clients: String) -> String {
        #"{"public_url":"https://auth.example.com","apps":{"myapp":{},"other":{}},"clients":{\#(clients)}}"#
    }

    /// Parses `clients` in a folder holding an owner-only `portal.secret`.
    static func parse(_ clients: String) throws -> ServerConfig {
        var result: ServerConfig?
        try ConfigSecretsTests.withSecret(mode: 0o600) { dir in
            try FileManager.default.copyItem(atPath: dir + "/hook.secret", toPath: dir + "/portal.secret")
            result = try ServerConfig.parse(config(clients), directory: dir)
        }
        return try #require(result)
    }

    /// The refusal's message, checked to be `invalid_configuration`; `nil` when accepted.
    static func refusal(_ clients: String) -> String? {
        do { _ = try parse(clients); return nil } catch let e as TokenError {
            #expect(e.code == .invalidConfiguration)
            return e.message
        } catch { return "\(error)" }
    }

    @Test("docs/oidc.md's example: a confidential first-party client and a public one, with their defaults")
    func example() throws {
        let c = try Self.parse(
            #"""
            "portal": { "app": "myapp", "name": "Customer portal", "secret_file": "portal.secret",
                        "redirect_uris": ["https://portal.example.com/callback"],
                        "post_logout_redirect_uris": ["https://portal.example.com/"],
                        "first_party": true, "scopes": ["openid", "profile", "email", "offline_access"],
                        "token_endpoint_auth_method": "client_secret_basic", "id_token_signed_response_alg": "RS256",
                        "require_pkce": false },
            "spa": { "app": "myapp", "redirect_uris": ["http://localhost:5173/cb"] },
            "resource-api": { "secret_file": "portal.secret" }
            """#)
        let portal = try #require(c.oidcClients["portal"])
        #expect(portal.app == "myapp" && portal.name == "Customer portal" && portal.firstParty && !portal.isPublic)
        #expect(portal.secret == Array(String(repeating: "s", count: 40).utf8))
        #expect(portal.redirectURIs == ["https://portal.example.com/callback"])
        #expect(portal.postLogoutRedirectURIs == ["https://portal.example.com/"])
        #expect(portal.authMethod == .clientSecretBasic && portal.idTokenAlgorithm == .rs256 && !portal.requirePKCE)
        let spa = try #require(c.oidcClients["spa"])
        #expect(spa.isPublic && spa.authMethod == OIDCClientConfig.AuthMethod.none && spa.requirePKCE)
        #expect(spa.name == "spa" && !spa.firstParty && spa.scopes == ["openid", "profile", "email", "offline_access"])
        #expect(spa.idTokenAlgorithm == .rs256 && spa.postLogoutRedirectURIs.isEmpty)
        // An entry without redirect_uris stays an introspection and revocation client, and only that.
        #expect(c.clients.keys.sorted() == ["resource-api"])
        #expect(c.oidcClients.keys.sorted() == ["portal", "spa"])
    }

    @Test("client_secret_post, ES256, require_pkce and a scope subset are kept")
    func options() throws {
        let c = try Self.parse(
            #""p":{"app":"other","secret_file":"portal.secret","redirect_uris":["https://a.example/cb","http://127.0.0.1/cb","http://[::1]:80/x?y=1"],"#
                + #""token_endpoint_auth_method":"client_secret_post","id_token_signed_response_alg":"ES256","require_pkce":true,"scopes":["email","openid"]}"#
        )
        let p = try #require(c.oidcClients["p"])
        #expect(p.authMethod == .clientSecretPost && p.idTokenAlgorithm == .es256 && p.requirePKCE && p.scopes == ["email", "openid"])
        #expect(p.redirectURIs.count == 3 && p.app == "other")
    }

    @Test(
        "every fault is invalid_configuration naming the member's path",
        arguments: [
            (#""p":{"redirect_uris":["https://a.example/cb"]}"#, "clients.p.app: required member is missing"),
            (#""p":{"app":"nope","redirect_uris":["https://a.example/cb"]}"#, "clients.p.app: no app"),
            (#""myapp":{"app":"myapp","redirect_uris":["https://a.example/cb"]}"#, "clients.myapp: an app has this id"),
            (#""a b":{"app":"myapp","redirect_uris":["https://a.example/cb"]}"#, "clients.a b: a client id"),
            (#""p":{"app":"myapp","redirect_uris":[]}"#, "clients.p.redirect_uris: at least one"),
            (#""p":{"app":"myapp","redirect_uris":[1]}"#, "clients.p.redirect_uris: must be an array of strings"),
            (#""p":{"app":"myapp","redirect_uris":["http://a.example/cb"]}"#, "clients.p.redirect_uris[0]: http is allowed only"),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb","http://10.0.0.1/cb"]}"#, "clients.p.redirect_uris[1]: http"),
            (#""p":{"app":"myapp","redirect_uris":["http://127.0.0.2/cb"]}"#, "clients.p.redirect_uris[0]: http is allowed only"),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb#x"]}"#, "clients.p.redirect_uris[0]: must not contain a fragment"),
            (#""p":{"app":"myapp","redirect_uris":["https://u:p@a.example/cb"]}"#, "clients.p.redirect_uris[0]: must not contain credentials"),
            (#""p":{"app":"myapp","redirect_uris":["/cb"]}"#, "clients.p.redirect_uris[0]: must be an absolute URL"),
            (#""p":{"app":"myapp","redirect_uris":["com.example.app:/cb"]}"#, "clients.p.redirect_uris[0]: must be an absolute URL"),
            (#""p":{"app":"myapp","redirect_uris":["ftp://a.example/cb"]}"#, "clients.p.redirect_uris[0]: must be https"),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/c b"]}"#, "clients.p.redirect_uris[0]: must not contain spaces"),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example:99999999/cb"]}"#, "clients.p.redirect_uris[0]: must be an absolute URL"),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb","https://a.example/cb"]}"#, "clients.p.redirect_uris[1]: listed twice"),
            (
                #""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"post_logout_redirect_uris":["http://a.example/"]}"#,
                "clients.p.post_logout_redirect_uris[0]: http is allowed only"
            ),
            (
                #""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}"#,
                "clients.p.token_endpoint_auth_method: a client without secret_file is public"
            ),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"require_pkce":false}"#, "clients.p.require_pkce: a public client"),
            (
                #""p":{"app":"myapp","secret_file":"portal.secret","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"none"}"#,
                "clients.p.token_endpoint_auth_method: none is for a public client"
            ),
            (
                #""p":{"app":"myapp","secret_file":"portal.secret","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#,
                "clients.p.token_endpoint_auth_method: must be"
            ),
            (
                #""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"id_token_signed_response_alg":"HS256"}"#,
                "clients.p.id_token_signed_response_alg: must be RS256 or ES256"
            ),
            (
                #""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"id_token_signed_response_alg":"none"}"#,
                "clients.p.id_token_signed_response_alg: must be RS256 or ES256"
            ),
            (
                #""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"scopes":["openid","address"]}"#,
                "clients.p.scopes: \"address\" is not one of"
            ),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"scopes":[]}"#, "clients.p.scopes: at least one"),
            (
                #""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"scopes":["openid","openid"]}"#,
                "clients.p.scopes: \"openid\" is listed twice"
            ),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"name":""}"#, "clients.p.name: must be 1…200 characters"),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"first_party":"yes"}"#, "clients.p.first_party: must be true or false"),
            (#""p":{"app":"myapp","redirect_uris":["https://a.example/cb"],"redirect_uri":"x"}"#, "clients.p.redirect_uri: unknown member"),
            (#""p":{"app":"myapp","secret_file":"missing.secret","redirect_uris":["https://a.example/cb"]}"#, "clients.p.secret_file:"),
            // The OpenID Connect members need redirect_uris: without, the entry is an introspection client.
            (#""p":{"secret_file":"portal.secret","app":"myapp"}"#, "clients.p.app: only for a client with redirect_uris"),
            (#""p":{"secret_file":"portal.secret","scopes":["openid"]}"#, "clients.p.scopes: only for a client with redirect_uris"),
        ])
    func refusals(clients: String, message: String) {
        let refusal = Self.refusal(clients)
        #expect(refusal?.hasPrefix(message) == true, "\(refusal ?? "accepted")")
    }

    @Test("at most 32 redirect URIs of at most 2000 bytes each")
    func bounds() {
        let many = (0...32).map { #""https://a.example/\#($0)""# }.joined(separator: ",")
        #expect(Self.refusal(#""p":{"app":"myapp","redirect_uris":[\#(many)]}"#)?.hasPrefix("clients.p.redirect_uris: at most 32") == true)
        let long = "https://a.example/" + String(repeating: "a", count: 2000)
        #expect(Self.refusal(#""p":{"app":"myapp","redirect_uris":["\#(long)"]}"#)?.hasPrefix("clients.p.redirect_uris[0]: longer than") == true)
    }

    @Test("an introspection client is read as before: secret_file required, nothing else")
    func introspectionClientUnchanged() throws {
        #expect(Self.refusal(#""api":{}"#)?.hasPrefix("clients.api.secret_file: required member is missing") == true)
        #expect(Self.refusal(#""api":{"secret_file":"portal.secret","name":"x"}"#)?.hasPrefix("clients.api.name: only for a client") == true)
        let c = try Self.parse(#""api":{"secret_file":"portal.secret"}"#)
        #expect(c.clients["api"]?.secret == Array(String(repeating: "s", count: 40).utf8) && c.oidcClients.isEmpty)
    }
}
