import Foundation
public import Hummingbird
import Identity
import JOSE
public import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import SessionStorePostgres
import SessionStoreSQLite
public import Sessions

/// The sign-in server (the App Services client protocol and OAuth 2.0, docs/server.md) on Hummingbird: one store and its
/// ``SessionService`` (issuer, key ring, refresh lookup, introspection, revocation, the sweep), a table of apps (each a
/// ``SessionManager``: the service with the app's ``AppSessionPolicy``, and its providers), the App Services and OAuth routes.
///
/// ```swift
/// let server = try await AuthServer.open(config: try ServerConfig.load(path: "server.json"))
/// try await server.run(host: "127.0.0.1", port: 8080) { host, port in print("listening on http://\(host):\(port)") }
/// ```
/// An app may embed the routes in its own Hummingbird application with ``addRoutes(to:)``.
public struct AuthServer: Sendable {
    public let config: ServerConfig
    public let store: any SessionStore
    /// What every app shares: the store, its key ring, the issuer (the JWKS, access-token
    /// verification before the app is known, introspection, revocation, the refresh-token
    /// lookup, the sweep).
    public let service: SessionService
    /// One session manager per app id: issuer = `public_url`, audience = client id = the app id.
    public let apps: [String: AppRuntime]
    /// The keys of ``apps``: the audiences of the access tokens this server accepts.
    let appIDs: Set<String>
    /// How long the sweep keeps a spent token's successor: the largest `reuse_grace` of any app,
    /// so that no app's client loses the successor it may still retry for.
    let sweepGrace: Int64
    /// The file of a master key this start created beside the SQLite store, if it did.
    public let createdMasterKeyFile: String?
    /// Each app's login methods.
    let loginMethods: [String: AppLoginMethods]
    /// Each app's `local-userpass` provider (apps without one are absent).
    let accounts: [String: AppAccounts]
    /// The HTTP client of the providers (and webhooks); shut down by ``close()``.
    let transport: AsyncHTTPClientTransport
    let metrics: ServerMetrics
    let logger: Logger
    /// Revocations and webhooks after a response, run by a service of the server's group.
    let background: BackgroundQueue
    /// `max_in_flight`: requests past it are answered 503 at once.
    let inFlight: InFlightLimit
    /// `connections_per_address`: the connections each client address holds open.
    let connections: ConnectionCounter
    /// Registrations and password resets (anyone may send them, and each may cost a scrypt) in
    /// flight at once: a quarter of `max_in_flight`, so that a flood of them leaves room for the rest.
    let passwordWork: InFlightLimit
    /// At most 2 password sign-ins of one client address in flight at once (given to ``UserpassLogin`` at start).
    let passwordSlots: AddressSlots
    /// At most 2 new passwords of one client address hashing at once (registrations, `reset/call`):
    /// apart from the sign-ins' slots, as their hasher is apart from the sign-ins' hasher.
    let newPasswordSlots = AddressSlots(perAddress: 2)

    /// An app of the table: its configuration and its session manager (the server's service with
    /// the app's policy).
    public struct AppRuntime: Sendable {
        public let config: AppConfig
        public let sessions: SessionManager
    }

    /// Opens the store (running its migrations), loads or creates the master key, makes the key
    /// ring's first key when it has none.
    /// - Throws: `invalid_configuration`, `store_unavailable`, `store_too_new`.
    public static func open(config: ServerConfig, logger: Logger = Logger(label: "tokentool.serve") { StreamLogHandler.standardError(label: $0) })
        async throws -> AuthServer
    {
        let (masterKey, created) = try MasterKey.load(config: config)
        let store: any SessionStore =
            config.isPostgres
            ? try await PostgresSessionStore.open(url: config.store)
            : try await SQLiteSessionStore.open(path: config.store)
        let transport = AsyncHTTPClientTransport()
        do {
            var apps: [String: AppRuntime] = [:]
            var loginMethods: [String: AppLoginMethods] = [:]
            var accounts: [String: AppAccounts] = [:]
            let passwordSlots = AddressSlots(perAddress: 2)
            let hasher = try PasswordHasher()  // one for the server: its bound holds across apps
            // New passwords (registrations, resets: callers who proved nothing yet) hash one at a
            // time with a short queue, apart from sign-ins, which they can then never starve.
            let newPasswords = try PasswordHasher(parameters: hasher.parameters, concurrency: 1, maxWaiting: 8)
            guard !config.apps.isEmpty else { throw TokenError(.invalidConfiguration, "apps: at least one app is needed") }
            var shared = SessionServiceConfiguration(issuer: config.publicURL)
            shared.masterKey = masterKey
            shared.longestAccessTokenLifetime = config.apps.values.map(\.accessTokenTTL).max() ?? shared.longestAccessTokenLifetime
            // An OpenID Provider's key ring holds an RS256 key beside its default one (ID tokens).
            if !config.oidcClients.isEmpty { shared.companionAlgorithms = [.rs256] }
            try shared.validate()
            let service = SessionService(store: store, configuration: shared)
            for (id, app) in config.apps {
                var policy = AppSessionPolicy(audience: id, defaultClientID: id)
                policy.app = id
                policy.accessTokenLifetime = app.accessTokenTTL
                policy.refreshAbsoluteLifetime = app.refreshTokenTTL
                policy.refreshIdleLifetime = app.refreshTokenTTL
                policy.reuseGraceInterval = app.reuseGrace
                try policy.validate()
                apps[id] = AppRuntime(config: app, sessions: SessionManager(service: service, policy: policy))
                accounts[id] = try AppAccounts.make(
                    app: app, sessions: apps[id]!.sessions, hasher: hasher, newPasswords: newPasswords, transport: transport)
                do {
                    loginMethods[id] = try AppLoginMethods(
                        app: app, config: config, transport: transport, accounts: accounts[id], passwordSlots: passwordSlots)
                } catch let e as TokenError {
                    throw TokenError(.invalidConfiguration, "apps.\(id).providers: \(e.message)")
                }
            }
            _ = try await service.keyRing.activeKey()
            try await service.keyRing.ensureCompanions()
            // Users written before apps were separate join their app (docs/stores.md "Apps").
            let adopted = try await SessionManager.adoptLegacyUsers(
                store: store, apps: Array(apps.keys), at: Int64(service.configuration.clock.now().timeIntervalSince1970))
            if adopted > 0 { logger.notice("users of earlier releases joined their app", metadata: ["users": .stringConvertible(adopted)]) }
            return AuthServer(
                config: config, store: store, service: service, apps: apps, appIDs: Set(apps.keys),
                sweepGrace: config.apps.values.map(\.reuseGrace).max() ?? 0,
                createdMasterKeyFile: created, loginMethods: loginMethods,
                accounts: accounts, transport: transport, metrics: ServerMetrics(), logger: logger, background: BackgroundQueue(logger: logger),
                inFlight: InFlightLimit(limit: config.maxInFlight),
                connections: ConnectionCounter(
                    limit: config.connectionsPerAddress,
                    exempt: { peer in
                        // A trusted proxy's connections carry many clients.
                        guard let bytes = peer.ipAddress.flatMap(IPNetwork.bytes(of:)) else { return false }
                        return config.trustedProxies.contains { $0.contains(bytes) }
                    }),
                passwordWork: InFlightLimit(limit: max(1, config.maxInFlight / 4)), passwordSlots: passwordSlots)
        } catch {
            try? await store.close()
            try? await transport.shutdown()
            throw error
        }
    }

    /// Closes the store and the providers' HTTP client.
    public func close() async throws {
        try? await transport.shutdown()
        try await store.close()
    }

    /// Adds the middleware (errors, logs, metrics) and every route to `router`.
    public func addRoutes(to router: Router<AuthRequestContext>) {
        let known = KnownPaths()
        router.add(middleware: RequestMiddleware(server: self, known: known))
        addRoutes(to: RouteTable(router: router, known: known, server: self))
    }

    /// The HTTP application on `host:port` (port 0 = any free port); `onListening` gets the real port.
    public func makeApplication(
        host: String, port: Int,
        onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: AuthRequestContext.self)
        addRoutes(to: router)
        let connections = self.connections
        return Application(
            router: router,
            // `idle_timeout` closes a connection that sends nothing (no head, or a head and then no
            // more of its body); `connections_per_address` bounds how many one address holds.
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [connections.handler()], idleTimeout: .seconds(config.idleTimeout))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            services: backgroundServices(),
            onServerRunning: { channel in await onListening(host, channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Background work, stopped with the server.
    func backgroundServices() -> [any Service] {
        var services: [any Service] = [Sweeper(service: service, grace: sweepGrace, logger: logger), background]
        if let listen = config.metricsListen { services.append(metricsApplication(host: listen.host, port: listen.port)) }
        return services
    }

    /// Runs until SIGTERM or SIGINT (in-flight requests get up to 10 s), then closes the store.
    public func run(host: String, port: Int, onListening: @escaping @Sendable (String, Int) async -> Void) async throws {
        let app = makeApplication(host: host, port: port, onListening: onListening)
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)  // in-flight requests get up to 10 s
        let group = ServiceGroup(configuration: configuration)
        do {
            try await group.run()
        } catch {
            try? await close()
            throw error
        }
        try await close()
    }

    /// The app the path's `{app}` names (noted for the log line), or `app_not_found`.
    func pathApp(_ context: AuthRequestContext) throws -> AppRuntime {
        let id = try context.parameters.require("app")
        let app = try self.app(id)
        context.app = id
        return app
    }

    /// The app of `id`, or `app_not_found`.
    func app(_ id: String) throws -> AppRuntime {
        guard let app = apps[id] else { throw TokenError(.appNotFound, "no app has id \"\(id.prefix(64))\"") }
        return app
    }
}

/// The Prometheus registry of one server (its own, not the process-wide metrics system, so that
/// several servers in one process count apart).
struct ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "tokentool", subsystem: "http", metricName: "requests", unitName: "total",
            helpText: "HTTP requests by route pattern and status")
    }
    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "tokentool", subsystem: "http", metricName: "request_duration", unitName: "seconds",
            helpText: "HTTP request durations by route pattern")
    }
    static let buckets: [Duration] = [.milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(2)]

    func record(route: String, status: Int, duration: Duration) {
        registry.makeCounter(descriptor: Self.requests, labels: [("route", route), ("status", String(status))]).increment()
        registry.makeDurationHistogram(descriptor: Self.duration, labels: [("route", route)], buckets: Self.buckets).record(duration)
    }

    /// The Prometheus text exposition.
    func text() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
