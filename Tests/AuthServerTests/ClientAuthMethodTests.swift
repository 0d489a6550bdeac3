@testable import AuthServer
import JOSE
import Testing

/// The client model and the authentication-method registry the OAuth endpoints and discovery share.
@Suite("OAuth clients and their authentication methods")
struct ClientAuthMethodTests {
    @Test("every method a client kind may use is one of the registry, named once; none proves no secret, the others do")
    func registry() {
        let names = ClientAuthMethods.all.map { $0.name }
        #expect(Set(names).count == names.count)
        for kind in OAuthClient.Kind.allCases { #expect(Set(kind.methods).isSubset(of: names), "\(kind)") }
        // A relying party registers a token_endpoint_auth_method of its config's list (RFC 7591 §2 names).
        #expect(OAuthClient.Kind.relyingParty.methods.sorted() == ["client_secret_basic", "client_secret_post", "none"])
        for method in ClientAuthMethods.all { #expect(method.provesSecret == (method.name != "none"), "\(method.name)") }
    }

    @Test("the config's three kinds under their ids; an app id that is also a service entry is told apart by the method")
    func directory() throws {
        let config = try OIDCClientConfigTests.parse(
            #"""
            "spa": { "app": "myapp", "redirect_uris": ["http://localhost:5173/cb"] },
            "portal": { "app": "myapp", "secret_file": "portal.secret", "redirect_uris": ["https://portal.example.com/cb"],
                        "token_endpoint_auth_method": "client_secret_post" },
            "other": { "secret_file": "portal.secret" }
            """#)
        let clients = OAuthClients(config)
        #expect(clients.kinds == [.relyingParty, .publicApp, .service])
        guard case .found(let spa) = clients.client("spa", method: "none") else { Issue.record("spa"); return }
        #expect(spa.kind == .relyingParty && spa.app == "myapp" && spa.secret == nil && !spa.servesEveryApp)
        guard case .otherMethod(let portal) = clients.client("portal", method: "client_secret_basic") else { Issue.record("portal"); return }
        #expect(portal.authMethods == ["client_secret_post"] && portal.relyingParty?.id == "portal")
        guard case .found(let service) = clients.client("other", method: "client_secret_basic"),
            case .found(let app) = clients.client("other", method: "none")
        else { Issue.record("other"); return }
        #expect(service.kind == .service && service.servesEveryApp && service.app == nil)
        #expect(app.kind == .publicApp && app.app == "other" && !app.servesEveryApp)
        guard case .unknown = clients.client("nobody", method: "none") else { Issue.record("nobody"); return }
    }

    @Test("discovery's lists: the methods of the kinds served, secret-proving ones alone for introspection")
    func discoveryLists() {
        // RFC 8414 metadata of a server without OpenID Connect clients (docs/oauth.md), and the provider's (docs/oidc.md).
        #expect(ClientAuthMethods.names(of: [.publicApp, .service], secretOnly: false) == ["none", "client_secret_basic", "client_secret_post"])
        #expect(ClientAuthMethods.names(of: [.publicApp, .service], secretOnly: true) == ["client_secret_basic", "client_secret_post"])
        #expect(ClientAuthMethods.names(of: OAuthClient.Kind.allCases, secretOnly: false) == ["client_secret_basic", "client_secret_post", "none"])
        #expect(ClientAuthMethods.names(of: OAuthClient.Kind.allCases, secretOnly: true) == ["client_secret_basic", "client_secret_post"])
    }
}
