import Foundation
import JOSE

/// One app of the config (`apps.ID`): token lifetimes, rotation and its providers.
public struct AppConfig: Sendable {
    /// The app id: the path's `{app}`, the access token's `aud` and `client_id`.
    public var id: String
    public var accessTokenTTL: Int64 = 30 * 60
    public var refreshTokenTTL: Int64 = 60 * 86_400
    public var refreshRotation = false
    public var reuseGrace: Int64 = 10
    /// Enabled providers by name (`anon-user`, `api-key`, `custom-token`, …).
    public var providers: [String: ProviderConfig] = [:]
    /// `webhooks.user_deleted`.
    public var userDeletedWebhook: String?

    /// The provider names the config knows.
    public static let providerNames: Set<String> = [
        "anon-user", "local-userpass", "api-key", "custom-token", "custom-function", "oauth2-google", "oauth2-apple", "oauth2-facebook",
    ]

    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    }

    init(id: String, _ o: inout ConfigObject, config: ServerConfig) throws {
        self.id = id
        accessTokenTTL = try o.duration("access_token_ttl") ?? accessTokenTTL
        refreshTokenTTL = try o.duration("refresh_token_ttl") ?? refreshTokenTTL
        refreshRotation = try o.bool("refresh_rotation") ?? false
        if o.value("reuse_grace") != nil {
            guard let g = try o.duration("reuse_grace"), g <= 300 else { throw o.error("reuse_grace", "must be a duration of at most 300s") }
            reuseGrace = g
        }
        if var p = try o.object("providers") {
            for name in p.memberNames {
                guard Self.providerNames.contains(name) else { throw p.error(name, "unknown member") }
                guard var po = try p.object(name) else { throw p.error(name, "must be an object") }
                providers[name] = try ProviderConfig(name: name, &po, config: config, appID: id)
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

/// One provider's settings, checked when the config is read (secret files included).
public enum ProviderConfig: Sendable {
    case anonymous
    case apiKey
    case localUserpass(LocalUserpass)
    case customToken(CustomToken)
    case customFunction(CustomFunction)
    case google(Google)
    case apple(Apple)
    case facebook(Facebook)

    public struct LocalUserpass: Sendable {
        public var autoConfirm = false
        public var minPasswordLength: Int64 = 6
        public var webhook: String?
        public var webhookSecret: [UInt8]?
        public var command: [String]?
        /// `confirm_token_ttl`: seconds a confirmation token lives (1 s…30 d, default 24 h).
        public var confirmTokenTTL: Int64 = 86_400
        /// `reset_token_ttl`: seconds a reset token lives (1 s…30 d, default 30 min).
        public var resetTokenTTL: Int64 = 1_800
    }

    public struct CustomToken: Sendable {
        /// A JWKS URL, or `nil` when ``jwksFile`` or ``hmacSecret`` is set.
        public var jwksURL: String?
        public var jwksFile: String?
        public var hmacSecret: [UInt8]?
        public var issuer: String?
        public var audience: [String]
        /// Profile field → claim path (`"name": "user_data.name"`).
        public var metadata: [(field: String, path: String)]
    }

    public struct CustomFunction: Sendable {
        public var url: String
        public var secret: [UInt8]
        /// `timeout`: the whole call, in seconds (1 s…60 s, default 10 s).
        public var timeout: Int64 = 10
    }

    public struct Google: Sendable {
        public var clientIDs: [String]
        public var clientSecret: String?
        public var redirectURI: String
        public var hostedDomain: String?
    }

    public struct Apple: Sendable {
        public var clientIDs: [String]
        public var teamID: String?
        public var keyID: String?
        /// The PEM of the `.p8` key.
        public var privateKeyPEM: String?
    }

    public struct Facebook: Sendable {
        public var appID: String
        public var appSecret: String
    }

    /// Profile fields that `metadata` may fill.
    static let profileFields: Set<String> = ["name", "email", "picture_url", "first_name", "last_name"]

    init(name: String, _ o: inout ConfigObject, config: ServerConfig, appID: String) throws {
        func secret(_ o: inout ConfigObject, _ member: String) throws -> [UInt8]? {
            try o.string(member).map { try ConfigSecret.read(config.resolve($0), what: o.path(member)) }
        }
        func nonEmpty(_ o: inout ConfigObject, _ member: String) throws -> [String] {
            guard let ids = try o.strings(member), !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty }) else {
                throw o.error(member, "must be a non-empty array of non-empty strings")
            }
            return ids
        }
        switch name {
        case "anon-user": self = .anonymous
        case "api-key": self = .apiKey
        case "local-userpass":
            var l = LocalUserpass()
            l.autoConfirm = try o.bool("auto_confirm") ?? false
            l.minPasswordLength = try o.int("min_password_length", range: 1...128) ?? 6
            func ttl(_ o: inout ConfigObject, _ member: String) throws -> Int64? {
                guard let ttl = try o.duration(member) else { return nil }
                guard (1...2_592_000).contains(ttl) else { throw o.error(member, "must be a duration of 1s…30d") }
                return ttl
            }
            l.confirmTokenTTL = try ttl(&o, "confirm_token_ttl") ?? l.confirmTokenTTL
            l.resetTokenTTL = try ttl(&o, "reset_token_ttl") ?? l.resetTokenTTL
            if var d = try o.object("delivery") {
                l.webhook = try d.callURL("webhook")
                l.webhookSecret = try secret(&d, "secret_file")
                l.command = try d.strings("command")
                if let argv = l.command {
                    // The server appends the recipient as the last argument; `-t` would make the
                    // program take recipients from the message's headers instead (or as well).
                    guard !argv.isEmpty else { throw d.error("command", "must name a program") }
                    if argv.dropFirst().contains(where: { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count <= 4 && $0.contains("t") }) {
                        throw d.error(
                            "command", "must not take recipients from the message (-t): the server passes the recipient as the last argument")
                    }
                }
                guard (l.webhook == nil) != (l.command == nil) else { throw o.error("delivery", "needs exactly one of webhook and command") }
                if l.webhook != nil, l.webhookSecret == nil { throw d.error("secret_file", "required with webhook") }
                try d.finish()
            }
            self = .localUserpass(l)
        case "custom-token":
            var jwksURL: String?
            var jwksFile: String?
            if let jwks = try o.string("jwks") {
                if jwks.hasPrefix("http://") || jwks.hasPrefix("https://") { jwksURL = jwks } else { jwksFile = config.resolve(jwks) }
            }
            let hmac = try secret(&o, "secret_file")
            guard (jwksURL != nil || jwksFile != nil) != (hmac != nil) else {
                throw o.error("jwks", "give exactly one of jwks and secret_file")
            }
            let issuer = try o.string("issuer")
            let audience = try o.strings("audience") ?? [appID]
            var metadata: [(String, String)] = []
            if var m = try o.object("metadata") {
                for field in m.memberNames {
                    guard Self.profileFields.contains(field) else {
                        throw m.error(field, "unknown member (one of \(Self.profileFields.sorted().joined(separator: ", ")))")
                    }
                    guard let path = try m.string(field), !path.isEmpty else { throw m.error(field, "must be a claim path") }
                    metadata.append((field, path))
                }
                try m.finish()
            }
            self = .customToken(
                CustomToken(jwksURL: jwksURL, jwksFile: jwksFile, hmacSecret: hmac, issuer: issuer, audience: audience, metadata: metadata))
        case "custom-function":
            guard let url = try o.url("url") else { throw o.error("url", "required member is missing") }
            guard let s = try secret(&o, "secret_file") else { throw o.error("secret_file", "required member is missing") }
            var f = CustomFunction(url: url, secret: s)
            if let timeout = try o.duration("timeout") {
                guard (1...60).contains(timeout) else { throw o.error("timeout", "must be a duration of 1s…60s") }
                f.timeout = timeout
            }
            self = .customFunction(f)
        case "oauth2-google":
            let ids = try nonEmpty(&o, "client_ids")
            let s = try secret(&o, "client_secret_file").map { String(decoding: $0, as: UTF8.self) }
            let redirect = try o.string("redirect_uri") ?? ""
            let hd = try o.string("hosted_domain")
            self = .google(Google(clientIDs: ids, clientSecret: s, redirectURI: redirect, hostedDomain: hd))
        case "oauth2-apple":
            let ids = try nonEmpty(&o, "client_ids")
            let team = try o.string("team_id")
            let key = try o.string("key_id")
            let pem = try secret(&o, "private_key_file").map { String(decoding: $0, as: UTF8.self) }
            guard (team == nil && key == nil && pem == nil) || (team != nil && key != nil && pem != nil) else {
                throw o.error("team_id", "team_id, key_id and private_key_file go together")
            }
            self = .apple(Apple(clientIDs: ids, teamID: team, keyID: key, privateKeyPEM: pem))
        case "oauth2-facebook":
            let appIDValue = try o.requiredString("app_id")
            guard let s = try secret(&o, "app_secret_file") else { throw o.error("app_secret_file", "required member is missing") }
            self = .facebook(Facebook(appID: appIDValue, appSecret: String(decoding: s, as: UTF8.self)))
        default:
            throw o.error(name, "unknown member")
        }
    }
}
