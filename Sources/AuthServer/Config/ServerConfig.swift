public import Foundation
public import Identity
import JOSE
public import OIDCProvider
public import Sessions  // RateLimit

/// The server's configuration file (docs/server.md, "The config"), parsed strictly: unknown
/// members are an error naming their JSON path, durations and rates are parsed, relative paths
/// are resolved against the config file's folder.
public struct ServerConfig: Sendable {
    /// The issuer of access tokens and the base of every absolute URL the server hands out.
    public var publicURL: String
    /// A SQLite path or a `postgres://` URL.
    public var store: String
    /// The master key sealing signing keys; `nil` = beside a SQLite store (created on first start).
    public var masterKeyFile: String?
    public var limits: Limits
    /// A header naming the client address (behind a proxy, `X-Forwarded-For`); `nil` = the socket's
    /// peer. Honoured only on connections from ``trustedProxies``.
    public var trustedProxyHeader: String?
    /// `trusted_proxies`: the networks of the proxies in front of the server (CIDRs, or single
    /// addresses), required with ``trustedProxyHeader``. From one of them, the client is the
    /// header's right-most address that is not theirs; from any other peer, the peer itself.
    public var trustedProxies: [IPNetwork] = []
    /// Requests handled at once (`max_in_flight`); one more is answered 503 `ServiceUnavailable` with
    /// `Retry-After: 1` at once instead of queueing behind them (`/healthz` and `/metrics` are exempt).
    public var maxInFlight: Int = ServerConfig.defaultMaxInFlight
    /// `max_in_flight` when the config has none: at the 150-500 logins/s of one instance on
    /// docs/performance.md's machine, a request let in waits at most ~0.2 s for those ahead of it, and
    /// twice the capacity is shed rather than queued ("Overload" there: p99 under 1 s; 64 was not).
    public static let defaultMaxInFlight = 32
    /// `idle_timeout`: seconds a connection may stay open with nothing read or written (1s…1h,
    /// default 60s; a request being answered is not idle); then it is closed.
    public var idleTimeout: Int64 = 60
    /// `body_timeout`: seconds from a request's head to the end of its body (1s…5m, default 10s); a
    /// later body is answered 408 `RequestTimeout` and its connection closed. A request holds no
    /// `max_in_flight` slot while its body arrives.
    public var bodyTimeout: Int64 = 10
    /// `connections_per_address`: connections one client address may hold open at once (1…100000,
    /// default 64; an IPv6 client's address is its /64); one more is closed as it is accepted.
    public var connectionsPerAddress: Int = 64
    /// `metrics_listen`: a second listener (`HOST:PORT`) that serves `GET /metrics` alone, to
    /// whoever reaches it (bind it where only the monitoring can).
    public var metricsListen: (host: String, port: Int)?
    /// `metrics_token_file`: with it, the main listener serves `/metrics` to `Authorization: Bearer`
    /// of this token. Without either, `/metrics` is 404 there.
    public var metricsToken: [UInt8]?
    /// Apps by id.
    public var apps: [String: AppConfig]
    public var providerURLs: ProviderURLs
    /// How long a call to Google, Apple, Facebook or a custom-token JWKS URL may take, in seconds
    /// (`provider_timeout`, 1s to 60s, default 5s); a login whose provider does not answer in time is
    /// 503 `ServiceUnavailable`. The custom function keeps its own 10 s.
    public var providerTimeout: Int64 = 5
    /// OAuth clients (introspection, revocation) by id, with their secrets.
    public var clients: [String: ClientConfig]
    /// OpenID Connect clients (`clients` entries with `redirect_uris`) by id.
    public var oidcClients: [String: OIDCClientConfig] = [:]
    /// `public_url` as the file spells it (a trailing slash kept): the OpenID issuer is exactly this.
    var configuredPublicURL: String?
    /// The folder relative paths were resolved against.
    public var directory: String
    /// `passkeys`: the relying party of every app's passkeys (``readPasskeys(_:publicURL:)``).
    public var passkeys = WebAuthnRelyingParty(id: "", origins: [])

    /// The config's `limits`: rates per client address, account and recipient (docs/accounts.md, "Throttling").
    public struct Limits: Sendable, Hashable {
        public var loginPerAddress = RateLimit(count: 300, window: 300)
        public var failedLoginPerAccount = RateLimit(count: 10, window: 900)
        public var anonymousPerAddress = RateLimit(count: 30, window: 3600)
        public var registerPerAddress = RateLimit(count: 30, window: 300)
        public var mailPerAddress = RateLimit(count: 5, window: 3600)
        /// `confirm/call` and `reset/call` per client address, both routes together: each costs a call
        /// to the app's function (and `reset/call` one scrypt), for unknown emails too.
        public var callPerAddress = RateLimit(count: 30, window: 300)
        /// `reset` and the reset page's form per client address, both together.
        public var resetPerAddress = RateLimit(count: 30, window: 300)
        /// `reset` and the reset page's form per `tokenId`, both together: tries at one link.
        public var resetPerToken = RateLimit(count: 10, window: 900)
        /// `confirm/send` and `reset/send` per client address, both together: each answer is the
        /// same for a registered email, so only the address can bound them.
        public var sendPerAddress = RateLimit(count: 30, window: 300)
        public init() {}
    }

    /// Where the providers live (tests point them at a stand-in).
    public struct ProviderURLs: Sendable, Hashable {
        public var google = "https://oauth2.googleapis.com"
        public var googleJWKS = "https://www.googleapis.com/oauth2/v3/certs"
        public var apple = "https://appleid.apple.com"
        public var facebookGraph = "https://graph.facebook.com"
        /// Google's authorization endpoint, whole (web sign-in sends browsers there).
        public var googleAuthorize = "https://accounts.google.com/o/oauth2/v2/auth"
        /// Facebook's web origin; its login dialog is this + ``facebookDialogPath``.
        public var facebookDialog = "https://www.facebook.com"
        /// Below ``apple``: Apple's authorization endpoint.
        public static let appleAuthorizePath = "/auth/authorize"
        /// Below ``facebookDialog``: Facebook's login dialog.
        public static let facebookDialogPath = "/v19.0/dialog/oauth"
        public init() {}
    }

    /// An OAuth client of the introspection and revocation endpoints.
    public struct ClientConfig: Sendable {
        public var secret: [UInt8]
    }

    /// The largest config file ``load(path:environment:)`` reads: 1 MiB.
    public static let maxFileBytes = 1 << 20

    /// Reads and checks the config file at `path`, then applies the environment overrides
    /// `TOKENTOOL_LISTEN` (returned), `TOKENTOOL_STORE` and `TOKENTOOL_MASTER_KEY_FILE`.
    /// At most ``maxFileBytes`` are read; anything but a regular file is refused unread.
    /// - Throws: `invalid_configuration` whose message starts with the file and the member's JSON path.
    public static func load(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfig {
        let url = URL(fileURLWithPath: path)
        let bytes: [UInt8]
        do {
            guard path != "-" else { throw TokenError(.invalidInput, "standard input is not a file") }
            bytes = try SecretFile.readBytes(path: path, limit: maxFileBytes, regularFileOnly: true)
        } catch let e as TokenError {
            throw TokenError(.invalidConfiguration, "\(path): \(e.message)")
        }
        do {
            var config = try parse(String(decoding: bytes, as: UTF8.self), directory: url.deletingLastPathComponent().path)
            if let store = environment["TOKENTOOL_STORE"], !store.isEmpty { config.store = config.resolve(store) }
            if let key = environment["TOKENTOOL_MASTER_KEY_FILE"], !key.isEmpty { config.masterKeyFile = config.resolve(key) }
            return config
        } catch let e as TokenError {
            throw TokenError(e.code == .invalidConfiguration ? e.code : .invalidConfiguration, "\(path): \(e.message)")
        }
    }

    /// Parses config text; relative paths are resolved against `directory`.
    public static func parse(_ text: String, directory: String) throws -> ServerConfig {
        let value: JSONValue
        do { value = try JSONValue(parsing: text, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 16, maxTopLevelMembers: 64)) } catch let e
            as TokenError
        {
            throw TokenError(.invalidConfiguration, "not valid JSON: \(e.message)")
        }
        guard let object = value.objectValue else { throw TokenError(.invalidConfiguration, "the config must be a JSON object") }
        var top = ConfigObject(object, path: "")
        var config = ServerConfig(
            publicURL: "", store: "", masterKeyFile: nil, limits: Limits(), trustedProxyHeader: nil,
            apps: [:], providerURLs: ProviderURLs(), clients: [:], directory: directory)
        config.publicURL = try top.requiredString("public_url")
        guard let u = URL(string: config.publicURL), ["http", "https"].contains(u.scheme ?? ""), u.host != nil, u.query == nil, u.fragment == nil
        else {
            throw top.error("public_url", "must be an absolute http or https URL without query or fragment")
        }
        config.configuredPublicURL = config.publicURL
        while config.publicURL.hasSuffix("/") { config.publicURL.removeLast() }
        config.store = config.resolve(try top.string("store") ?? "tokentool.sqlite")
        config.masterKeyFile = try top.string("master_key_file").map(config.resolve)
        config.passkeys = try readPasskeys(&top, publicURL: config.publicURL)
        if var l = try top.object("limits") {
            config.limits.loginPerAddress = try l.rate("login_per_address") ?? config.limits.loginPerAddress
            config.limits.failedLoginPerAccount = try l.rate("failed_login_per_account") ?? config.limits.failedLoginPerAccount
            config.limits.anonymousPerAddress = try l.rate("anonymous_per_address") ?? config.limits.anonymousPerAddress
            config.limits.registerPerAddress = try l.rate("register_per_address") ?? config.limits.registerPerAddress
            config.limits.mailPerAddress = try l.rate("mail_per_address") ?? config.limits.mailPerAddress
            config.limits.callPerAddress = try l.rate("call_per_address") ?? config.limits.callPerAddress
            config.limits.resetPerAddress = try l.rate("reset_per_address") ?? config.limits.resetPerAddress
            config.limits.resetPerToken = try l.rate("reset_per_token") ?? config.limits.resetPerToken
            config.limits.sendPerAddress = try l.rate("send_per_address") ?? config.limits.sendPerAddress
            try l.finish()
        }
        config.trustedProxyHeader = try top.string("trusted_proxy_header")
        for text in try top.strings("trusted_proxies") ?? [] {
            guard let network = IPNetwork(cidr: text) else {
                throw top.error(
                    "trusted_proxies", "\"\(text.prefix(64))\" is not an IP address or a CIDR network (\"10.0.0.0/8\", \"2001:db8::/32\")")
            }
            config.trustedProxies.append(network)
        }
        if config.trustedProxyHeader != nil, config.trustedProxies.isEmpty {
            throw top.error("trusted_proxies", "required with trusted_proxy_header: the header is honoured only from these peers")
        }
        if config.trustedProxyHeader == nil, !config.trustedProxies.isEmpty {
            throw top.error("trusted_proxy_header", "required with trusted_proxies")
        }
        if let listen = try top.string("metrics_listen") {
            do { config.metricsListen = try ListenAddress.parse(listen) } catch let e as TokenError { throw top.error("metrics_listen", e.message) }
        }
        if let file = try top.string("metrics_token_file") {
            config.metricsToken = try ConfigSecret.read(config.resolve(file), what: top.path("metrics_token_file"))
        }
        config.maxInFlight = Int(try top.int("max_in_flight", range: 1...100_000) ?? Int64(defaultMaxInFlight))
        config.idleTimeout = try top.duration("idle_timeout", range: 1...3600) ?? config.idleTimeout
        config.bodyTimeout = try top.duration("body_timeout", range: 1...300) ?? config.bodyTimeout
        config.connectionsPerAddress = Int(try top.int("connections_per_address", range: 1...100_000) ?? Int64(config.connectionsPerAddress))
        if var p = try top.object("provider_urls") {
            config.providerURLs.google = try p.url("google") ?? config.providerURLs.google
            config.providerURLs.googleJWKS = try p.url("google_jwks") ?? config.providerURLs.googleJWKS
            config.providerURLs.apple = try p.url("apple") ?? config.providerURLs.apple
            config.providerURLs.facebookGraph = try p.url("facebook_graph") ?? config.providerURLs.facebookGraph
            // Browsers are sent to these, never the server: checked here, as no provider checks them.
            config.providerURLs.googleAuthorize = try p.callURL("google_authorize") ?? config.providerURLs.googleAuthorize
            config.providerURLs.facebookDialog = try p.callURL("facebook_dialog") ?? config.providerURLs.facebookDialog
            try p.finish()
        }
        if let t = try top.duration("provider_timeout") {
            guard (1...60).contains(t) else { throw top.error("provider_timeout", "must be 1s to 60s") }
            config.providerTimeout = t
        }
        if var c = try top.object("clients") {
            for id in c.memberNames {
                guard var client = try c.object(id) else { throw c.error(id, "must be an object") }
                if let oidc = try OIDCClientConfig.read(id: id, &client, config: config) {
                    try client.finish()
                    config.oidcClients[id] = oidc
                    continue
                }
                let file = config.resolve(try client.requiredString("secret_file"))
                let secret = try ConfigSecret.read(file, what: client.path("secret_file"))
                try client.finish()
                config.clients[id] = ClientConfig(secret: secret)
            }
            try c.finish()
        }
        guard var apps = try top.object("apps") else { throw top.error("apps", "required member is missing") }
        for id in apps.memberNames {
            guard AppConfig.isValidID(id) else { throw apps.error(id, "an app id is 1…64 characters of A-Z a-z 0-9 - _ .") }
            guard var app = try apps.object(id) else { throw apps.error(id, "must be an object") }
            config.apps[id] = try AppConfig(id: id, &app, config: config)
            try app.finish()
        }
        try apps.finish()
        guard !config.apps.isEmpty else { throw top.error("apps", "at least one app is required") }
        try config.checkOIDCClients()
        try top.finish()
        return config
    }

    /// `path` when absolute (or a URL), else relative to the config's folder.
    func resolve(_ path: String) -> String {
        if path.hasPrefix("/") || path.hasPrefix("postgres://") || path.hasPrefix("postgresql://") || path.contains("://") { return path }
        return URL(fileURLWithPath: directory).appendingPathComponent(path).path
    }

    /// `true` when ``store`` names a PostgreSQL database.
    public var isPostgres: Bool { store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") }
}

extension ConfigObject {
    /// A URL the server calls with secrets in the body (mail webhooks, `user_deleted`): https, or
    /// http on loopback only, without credentials, as the custom function's URL.
    mutating func callURL(_ name: String) throws -> String? {
        guard let s = try url(name) else { return nil }
        do { return try ProviderURL.validate(s, what: "the URL") } catch let e as TokenError { throw error(name, e.message) }
    }

    mutating func url(_ name: String) throws -> String? {
        guard var s = try string(name) else { return nil }
        guard let u = URL(string: s), ["http", "https"].contains(u.scheme ?? ""), u.host != nil else {
            throw error(name, "must be an absolute http or https URL")
        }
        while s.hasSuffix("/") { s.removeLast() }
        return s
    }
}
