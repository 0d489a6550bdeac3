public import JOSE
import Sessions
import OIDCProvider

/// The OpenID Provider's metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2), served at
/// `/.well-known/openid-configuration` and `/.well-known/oauth-authorization-server`.
public enum OIDCDiscovery {
    /// `Cache-Control` of the document.
    public static let cacheControl = "public, max-age=3600"

    /// Endpoint paths below `public_url`.
    public static let authorizationPath = "/oauth/authorize"
    public static let userinfoPath = "/oauth/userinfo"
    public static let endSessionPath = "/oauth/logout"

    /// The document for `config`: `issuer` is `public_url` exactly as the file spells it (OIDC
    /// Discovery §4.3: a relying party compares it character for character with the issuer it
    /// was given), every endpoint an absolute URL below it; the introspection and revocation
    /// members as the OAuth endpoints have them.
    public static func document(_ config: ServerConfig) -> JSONObject {
        let base = config.publicURL
        var o = OAuthMetadata.document(
            publicURL: base, grants: OAuthGrants.names(offeredBy: config, provider: true), clients: OAuthClient.Kind.allCases)
        o["issuer"] = .string(config.issuer)
        o["authorization_endpoint"] = .string(base + authorizationPath)
        o["userinfo_endpoint"] = .string(base + userinfoPath)
        o["end_session_endpoint"] = .string(base + endSessionPath)
        o["scopes_supported"] = .array(OIDCClientConfig.knownScopes.map(JSONValue.string))
        o["response_types_supported"] = ["code"]
        o["response_modes_supported"] = ["query"]
        o["subject_types_supported"] = ["public"]
        o["id_token_signing_alg_values_supported"] = .array(OIDCClientConfig.idTokenAlgorithms.map { .string($0.rawValue) })
        o["code_challenge_methods_supported"] = .array(PKCE.methods.map(JSONValue.string))
        o["claims_supported"] = .array(OIDCClaims.supported.map(JSONValue.string))
        // The two acr values the ID token says, the MFA one honoured in `acr_values` (a step-up).
        o["acr_values_supported"] = [.string(SessionSignIn.acrMFA), .string(SessionSignIn.acrPassword)]
        o["prompt_values_supported"] = .array(OIDCAuthorizationRequest.Prompt.allCases.map { .string($0.rawValue) })
        o["authorization_response_iss_parameter_supported"] = true
        o["request_parameter_supported"] = false
        o["request_uri_parameter_supported"] = false
        return o
    }
}

extension ServerConfig {
    /// The OpenID issuer: `public_url` exactly as configured (``publicURL`` has its trailing
    /// slashes removed).
    public var issuer: String { configuredPublicURL ?? publicURL }
}
