import Foundation
import JOSE
import OIDCProvider

/// One app of the config (`apps.ID`): token lifetimes, rotation and its providers.
public struct AppConfig: Sendable {
    /// The app id: the path's `{app}`, the access token's `aud` and `client_id`.
    public var id: String
    public var accessTokenTTL: Int64 = 30 * 60
    public var refreshTokenTTL: Int64 = 60 * 86_400
    public var refreshRotation = false
    public var reuseGrace: Int64 = 10
    /// Enabled login methods by config name (`anon-user`, `api-key`, `custom-token`, …).
    public var providers: [String: ProviderConfig] = [:]
    /// `webhooks.user_deleted`.
    public var userDeletedWebhook: String?
    /// `redirect_uris`: where the App Services redirect flow (web sign-in) may send a browser
    /// back, compared exactly (``OIDCRedirectURI/registrationProblem(_:)`` says what may be listed).
    public var redirectURIs: [String] = []
    /// `op_session_ttl`: how long the OpenID Provider's browser session lasts (``readOPSessionTTL(_:)``).
    public var opSessionTTL = AppConfig.defaultOPSessionTTL
    /// `allowed_request_origins`: the origins whose pages may call this app from a browser (CORS,
    /// ``CORSPolicy``); empty allows no other origin.
    public var allowedRequestOrigins: [String] = []

    /// The provider names the config knows: the login methods' (``LoginMethodRegistry``).
    public static var providerNames: Set<String> { Set(LoginMethodRegistry.inUse.names) }

    static func isValidID(_ id: String) -> Bool { ConfigID.isValid(id) }

    init(id: String, _ o: inout ConfigObject, config: ServerConfig) throws {
        self.id = id
        accessTokenTTL = try o.duration("access_token_ttl") ?? accessTokenTTL
        refreshTokenTTL = try o.duration("refresh_token_ttl") ?? refreshTokenTTL
        refreshRotation = try o.bool("refresh_rotation") ?? false
        if o.value("reuse_grace") != nil {
            guard let g = try o.duration("reuse_grace"), g <= 300 else { throw o.error("reuse_grace", "must be a duration of at most 300s") }
            reuseGrace = g
        }
        opSessionTTL = try Self.readOPSessionTTL(&o)
        redirectURIs = try OIDCClientConfig.uris(&o, "redirect_uris", required: false)
        allowedRequestOrigins = try Self.readAllowedRequestOrigins(&o)
        if var p = try o.object("providers") {
            let methods = LoginMethodRegistry.inUse
            for name in p.memberNames {
                guard let method = methods.method(named: name) else { throw p.error(name, "unknown member") }
                guard var po = try p.object(name) else { throw p.error(name, "must be an object") }
                providers[name] = try ProviderConfig(method, &po, LoginConfigContext(server: config, appID: id))
                try po.finish()
            }
            try p.finish()
        }
        if var w = try o.object("webhooks") {
            userDeletedWebhook = try w.callURL("user_deleted")
            try w.finish()
        }
    }
}
