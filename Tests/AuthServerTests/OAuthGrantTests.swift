@testable import AuthServer
import Foundation
import Testing

/// The token endpoint's grants are a registry (``OAuthGrants``): every `*Grant.swift` of
/// Sources/AuthServer/OAuth is one registered grant, the refusal of any other `grant_type` names
/// those listed, and discovery lists what the registry says (OAuthTests and OIDCTokenTests run the
/// grants themselves over HTTP).
@Suite struct OAuthGrantTests {
    @Test("every *Grant.swift of Sources/AuthServer/OAuth is one registered grant, with a grant_type of its own")
    func everyFileIsRegistered() throws {
        let files = try RegistryFiles.types(in: "OAuth", suffix: "Grant.swift", protocolFile: "OAuthGrant.swift")
        #expect(files == OAuthGrants.standard.map { String(describing: $0) }.sorted())
        let names = OAuthGrants.standard.map { $0.grantType }
        #expect(Set(names).count == names.count && names == ["authorization_code", "refresh_token"])
    }

    @Test("the refusal of another grant_type names the listed ones, as docs/oauth.md shows it")
    func refusal() {
        #expect(OAuthGrants.unsupported(offered: ["refresh_token"]).description == "only the refresh_token grant is supported")
        #expect(
            OAuthGrants.unsupported(offered: ["authorization_code", "refresh_token"]).description
                == "the grant_type must be authorization_code or refresh_token")
        let three = OAuthGrants.unsupported(offered: ["authorization_code", "client_credentials", "refresh_token"])
        #expect(three.description == "the grant_type must be authorization_code, client_credentials or refresh_token")
        #expect(three.error == "unsupported_grant_type" && three.status == 400)
    }

    @Test("discovery lists the authorization code once OpenID Connect clients exist; an unknown grant is refused by that list", arguments: StoreKind.available)
    func discovery(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: #"{ "myapp": { "providers": { "anon-user": {} } } }"#) { s in
            let plain = try await s.call(.GET, "/.well-known/oauth-authorization-server")
            #expect(plain.object["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) == ["refresh_token"])
            func token(_ body: String) async throws -> LiveServer.Answer {
                try await WebSignInBrowser.send(
                    .POST, s.baseURL + "/oauth/token", body: body, contentType: "application/x-www-form-urlencoded", browser: nil)
            }
            let password = try await token("grant_type=password&client_id=myapp")
            #expect(password.status == 400 && password["error"] == "unsupported_grant_type")
            #expect(password["error_description"] == "only the refresh_token grant is supported")
            // A grant the registry has but this config does not list: answered by the grant, as before.
            let code = try await token("grant_type=authorization_code&client_id=myapp&code=x")
            #expect(code.status == 400 && code["error"] == "unauthorized_client", "\(code.body)")
        }
        try await OIDCFixture.with(kind) { s in
            let document = try await s.call(.GET, "/.well-known/openid-configuration")
            #expect(document.object["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) == ["authorization_code", "refresh_token"])
        }
    }
}
