import Foundation
import Identity
import JOSE
import Sessions

/// The identity providers of one app, made from its config once, and the one place a login body
/// becomes a credential.
struct LoginProviders: Sendable {
    var customToken: CustomJWTProvider?
    var google: GoogleProvider?
    var googleRedirectURI = ""
    /// `client_ids[0]`: the client a code is exchanged for.
    var googleClientID = ""
    var appleClientID = ""
    var apple: AppleProvider?
    var facebook: FacebookProvider?
    var customFunction: CustomFunctionProvider?

    /// What a login body proved.
    enum Credential: Sendable {
        /// An identity to find or create the user of; with a provider token to keep (Apple's refresh
        /// token, as ``KeptProviderToken/stored``).
        case identity(Identity, keep: String?)
        /// An existing user (an email/password account's).
        case user(String)
        /// An API key's owner, signing in with that key (the session ends with the key).
        case apiKey(userID: String, keyID: String)
    }

    init(app: AppConfig, config: ServerConfig, transport: any HTTPTransport) throws {
        let urls = config.providerURLs
        let timeout = TimeInterval(config.providerTimeout)
        for (name, provider) in app.providers {
            switch provider {
            case .customToken(let c):
                var pc = CustomJWTProvider.Configuration(name: name, issuers: Set(c.issuer.map { [$0] } ?? []), audiences: Set(c.audience))
                let fields: [String: IdentityField] = [
                    "name": .name, "email": .email, "picture_url": .picture, "first_name": .givenName, "last_name": .familyName,
                ]
                for (field, path) in c.metadata { if let f = fields[field] { pc.mapping[f] = try ClaimPath(path) } }
                let keys: KeySource
                if let secret = c.hmacSecret {
                    keys = .keys(try JWKSet(keys: [JWK(hmacSecret: secret)]))
                } else {
                    keys = try KeySource.urlOrFile(c.jwksURL ?? c.jwksFile ?? "", transport: transport, policy: .init(timeout: timeout))
                }
                customToken = try CustomJWTProvider(configuration: pc, keys: keys)
            case .google(let g):
                var gc = GoogleProvider.Configuration(clientIDs: Set(g.clientIDs), hostedDomain: g.hostedDomain, clientSecret: g.clientSecret)
                gc.jwksURL = urls.googleJWKS
                gc.tokenURL = urls.google + "/token"
                gc.timeout = timeout
                google = try GoogleProvider(configuration: gc, transport: transport)
                googleRedirectURI = g.redirectURI
                googleClientID = g.clientIDs[0]
            case .apple(let a):
                var key: AppleProvider.ClientSecretKey?
                if let team = a.teamID, let kid = a.keyID, let pem = a.privateKeyPEM {
                    key = AppleProvider.ClientSecretKey(
                        teamID: team, keyID: kid,
                        privateKey: try KeyFile.single(KeyFile.parse(Array(pem.utf8), source: "private_key_file"), source: "private_key_file"))
                }
                var ac = AppleProvider.Configuration(clientIDs: Set(a.clientIDs), clientSecretKey: key)
                ac.jwksURL = urls.apple + "/auth/keys"
                ac.tokenURL = urls.apple + "/auth/token"
                ac.revokeURL = urls.apple + "/auth/revoke"
                ac.timeout = timeout
                apple = try AppleProvider(configuration: ac, transport: transport)
                appleClientID = a.clientIDs[0]
            case .facebook(let f):
                var fc = FacebookProvider.Configuration(appID: f.appID, appSecret: f.appSecret)
                fc.graphURL = urls.facebookGraph
                fc.timeout = timeout
                facebook = try FacebookProvider(configuration: fc, transport: transport)
            case .customFunction(let f):
                var fc = CustomFunctionProvider.Configuration(url: f.url, secret: f.secret)
                fc.providerName = name
                fc.timeout = TimeInterval(f.timeout)
                customFunction = try CustomFunctionProvider(configuration: fc, transport: transport)
            default: break
            }
        }
    }

    /// Verifies the login body of `provider`; a refused credential is `auth_failed`.
    func credential(_ provider: String, body: RequestJSON, sessions: SessionManager) async throws -> Credential {
        do {
            switch provider {
            case "anon-user":
                return .identity(Identity(provider: provider, subject: try RandomID.hex(bytes: 12)), keep: nil)
            case "api-key":
                let key = try await sessions.apiKey(forKey: try body.string("key", maxBytes: 256))
                return .apiKey(userID: key.userID, keyID: key.id)
            case "custom-token":
                guard let customToken else { break }
                return .identity(named(try await customToken.verify(token: try body.string("token")), provider), keep: nil)
            case "oauth2-google":
                guard let google else { break }
                if let code = try body.optionalString("authCode") {
                    let result = try await google.exchange(code: code, clientID: googleClientID, redirectURI: googleRedirectURI)
                    return .identity(named(result.identity, provider), keep: nil)
                }
                return .identity(named(try await google.verify(idToken: try body.string("id_token")), provider), keep: nil)
            case "oauth2-apple":
                guard let apple else { break }
                let nonce = try body.optionalString("nonce", maxBytes: 512)
                if let code = try body.optionalString("authCode") {
                    let result = try await apple.exchange(code: code, clientID: appleClientID, nonce: nonce)
                    let keep = result.refreshToken.map { KeptProviderToken(clientID: appleClientID, token: $0).stored }
                    return .identity(named(result.identity, provider), keep: keep)
                }
                return .identity(named(try await apple.verify(idToken: try body.string("id_token"), nonce: nonce), provider), keep: nil)
            case "custom-function":
                guard let customFunction else { break }
                return .identity(try await customFunction.verify(payload: body.object), keep: nil)
            case "oauth2-facebook":
                guard let facebook else { break }
                return .identity(named(try await facebook.verify(accessToken: try body.string("accessToken")), provider), keep: nil)
            default: break
            }
        } catch let e as TokenError where e.code.rejectsToken && ![.missingParameter, .invalidParameter, .badRequest].contains(e.code) {
            // The custom function's own words (bounded, printable) are the message; otherwise the check's code.
            throw TokenError(
                .authFailed, e.code == .customFunctionRefused ? e.message : "the \(provider) credential was refused (\(e.code.rawValue))")
        }
        throw TokenError(.providerNotFound, "this server does not serve \(provider) logins yet")
    }

    /// The identity under the provider's config name (`oauth2-google`, not `google`).
    private func named(_ identity: Identity, _ provider: String) -> Identity {
        var i = identity
        i.provider = provider
        return i
    }
}
