import JOSE
import Sessions

/// The documents the OAuth endpoints answer with.
enum OAuthMetadata {
    /// RFC 8414 §2 metadata, also served as `openid-configuration`. No authorization endpoint
    /// exists, so `response_types_supported` is empty and no OpenID Provider member is claimed.
    /// `grants`: the `grant_type`s offered (``OAuthGrants/names(offeredBy:)``); `clients`: the
    /// kinds of client served, whose methods (``ClientAuthMethods``) each endpoint lists.
    static func document(publicURL: String, grants: [String], clients: [OAuthClient.Kind]) -> JSONObject {
        let methods = JSONValue.array(ClientAuthMethods.names(of: clients, secretOnly: false).map(JSONValue.string))
        let secretMethods = JSONValue.array(ClientAuthMethods.names(of: clients, secretOnly: true).map(JSONValue.string))
        return [
            "issuer": .string(publicURL),
            "jwks_uri": .string(publicURL + "/.well-known/jwks.json"),
            "token_endpoint": .string(publicURL + "/oauth/token"),
            "introspection_endpoint": .string(publicURL + "/oauth/introspect"),
            "revocation_endpoint": .string(publicURL + "/oauth/revoke"),
            "grant_types_supported": .array(grants.map { .string($0) }),
            "response_types_supported": [],
            "token_endpoint_auth_methods_supported": methods,
            "revocation_endpoint_auth_methods_supported": methods,
            "introspection_endpoint_auth_methods_supported": secretMethods,
        ]
    }

    /// RFC 7662 §2.2: `{"active":false}` alone for a token that is not live; else `active`, `sub`,
    /// `client_id`, `aud`, `iss`, `exp`, `iat`, `sid`, `scope` (an OpenID Connect client's token's), and for access tokens `token_type`
    /// `Bearer` (RFC 6749 §7.1) and `jti`. A refresh token's `aud` is its app, the audience of
    /// the access tokens it yields.
    static func introspection(_ result: Introspection) -> JSONObject {
        guard result.active else { return ["active": false] }
        var out: JSONObject = ["active": true]
        let accessToken = result.response["token_type"] == "access_token"
        for name in ["sub", "client_id", "aud", "iss", "exp", "iat", "sid", "jti", "scope"] {
            if let v = result.response[name] { out[name] = v }
        }
        if accessToken {
            out["token_type"] = "Bearer"
        } else if out["aud"] == nil, let client = out["client_id"] {
            out["aud"] = client
        }
        return out
    }
}
