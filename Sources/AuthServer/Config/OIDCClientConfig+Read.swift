import Foundation
import JOSE
import OIDCProvider

/// Reading a `clients` entry with `redirect_uris` from the config (docs/oidc.md, "Configuring a client").
extension OIDCClientConfig {
    /// The members only an OpenID Connect client may have: each requires `redirect_uris`.
    static let members = [
        "app", "name", "redirect_uris", "post_logout_redirect_uris", "first_party", "scopes", "token_endpoint_auth_method",
        "id_token_signed_response_alg", "require_pkce",
    ]

    /// Reads the entry `id` when it has `redirect_uris`; `nil` (nothing read) when it has none,
    /// after checking it has none of the other OpenID Connect members either. The `app` is
    /// checked against the apps by ``ServerConfig/checkOIDCClients()`` once they are read.
    /// - Throws: `invalid_configuration` naming the member's path.
    static func read(id: String, _ o: inout ConfigObject, config: ServerConfig) throws -> OIDCClientConfig? {
        guard o.memberNames.contains("redirect_uris") else {
            if let name = members.first(where: o.memberNames.contains) {
                throw o.error(name, "only for a client with redirect_uris (an OpenID Connect client)")
            }
            return nil
        }
        guard AppConfig.isValidID(id) else {
            throw TokenError(.invalidConfiguration, "\(o.path): a client id with redirect_uris is 1…64 characters of A-Z a-z 0-9 - _ .")
        }
        let app = try o.requiredString("app")
        let redirectURIs = try uris(&o, "redirect_uris", required: true)
        let logoutURIs = try uris(&o, "post_logout_redirect_uris", required: false)
        let name = try o.string("name")
        if let name, name.isEmpty || name.count > 200 { throw o.error("name", "must be 1…200 characters") }
        let secret = try o.string("secret_file").map { try ConfigSecret.read(config.resolve($0), what: o.path("secret_file")) }
        let method = try authMethod(&o, isPublic: secret == nil)
        let requirePKCE = try o.bool("require_pkce")
        if secret == nil, requirePKCE == false {
            throw o.error("require_pkce", "a public client (no secret_file) always requires PKCE")
        }
        return OIDCClientConfig(
            id: id, app: app, name: name, secret: secret, redirectURIs: redirectURIs, postLogoutRedirectURIs: logoutURIs,
            firstParty: try o.bool("first_party") ?? false, scopes: try scopes(&o), authMethod: method,
            idTokenAlgorithm: try algorithm(&o), requirePKCE: requirePKCE ?? false)
    }

    /// Reads a list of redirect URIs (`name`): at most ``maxRedirectURIs``, each registrable
    /// (``OIDCRedirectURI/registrationProblem(_:)``), at most ``maxRedirectURILength`` bytes, none twice.
    static func uris(_ o: inout ConfigObject, _ name: String, required: Bool) throws -> [String] {
        guard let list = try o.strings(name) else {
            if required { throw o.error(name, "required member is missing") }
            return []
        }
        if required, list.isEmpty { throw o.error(name, "at least one URL is required") }
        guard list.count <= maxRedirectURIs else { throw o.error(name, "at most \(maxRedirectURIs) URLs") }
        var seen: Set<String> = []
        for (i, text) in list.enumerated() {
            let path = "\(name)[\(i)]"
            guard text.utf8.count <= maxRedirectURILength else { throw o.error(path, "longer than \(maxRedirectURILength) bytes") }
            if let problem = OIDCRedirectURI.registrationProblem(text) { throw o.error(path, problem) }
            guard seen.insert(text).inserted else { throw o.error(path, "listed twice") }
        }
        return list
    }

    /// The pinned `token_endpoint_auth_method`; `nil` when the entry names none.
    private static func authMethod(_ o: inout ConfigObject, isPublic: Bool) throws -> AuthMethod? {
        guard let text = try o.string("token_endpoint_auth_method") else { return nil }
        guard let method = AuthMethod(rawValue: text) else {
            throw o.error("token_endpoint_auth_method", "must be client_secret_basic, client_secret_post or none")
        }
        if isPublic, method != .none {
            throw o.error("token_endpoint_auth_method", "a client without secret_file is public: its method is none")
        }
        if !isPublic, method == .none {
            throw o.error("token_endpoint_auth_method", "none is for a public client: remove secret_file, or use client_secret_basic")
        }
        return method
    }

    private static func scopes(_ o: inout ConfigObject) throws -> [String] {
        guard let list = try o.strings("scopes") else { return knownScopes }
        guard !list.isEmpty else { throw o.error("scopes", "at least one scope is required") }
        var out: [String] = []
        for scope in list {
            guard knownScopes.contains(scope) else {
                throw o.error("scopes", "\"\(scope.prefix(64))\" is not one of \(knownScopes.joined(separator: ", "))")
            }
            guard !out.contains(scope) else { throw o.error("scopes", "\"\(scope)\" is listed twice") }
            out.append(scope)
        }
        return out
    }

    private static func algorithm(_ o: inout ConfigObject) throws -> JWSAlgorithm {
        guard let text = try o.string("id_token_signed_response_alg") else { return .rs256 }
        guard let alg = JWSAlgorithm(rawValue: text), idTokenAlgorithms.contains(alg) else {
            throw o.error("id_token_signed_response_alg", "must be RS256 or ES256")
        }
        return alg
    }
}

extension ServerConfig {
    /// Checks what the `clients` entries could not check alone, once `apps` is read: each OpenID
    /// Connect client names an app, and no client id is an app id (the token endpoint takes an
    /// app id as the `client_id` of an App Services session's refresh).
    /// - Throws: `invalid_configuration` naming the member's path.
    func checkOIDCClients() throws {
        // The discovery document's issuer and every token's `iss` are public_url exactly: one string.
        if !oidcClients.isEmpty, issuer.hasSuffix("/") {
            throw TokenError(
                .invalidConfiguration,
                "public_url: must not end in / when clients have redirect_uris: it is their OpenID issuer, compared exactly")
        }
        for id in oidcClients.keys.sorted() {
            guard let client = oidcClients[id] else { continue }
            guard apps[client.app] != nil else {
                throw TokenError(.invalidConfiguration, "clients.\(id).app: no app \"\(client.app.prefix(64))\" in apps")
            }
            guard apps[id] == nil else {
                throw TokenError(.invalidConfiguration, "clients.\(id): an app has this id; a client id must differ from every app id")
            }
        }
    }
}
