public import Foundation
public import JOSE

/// A provider's JWKS fetched over HTTP(S) and cached: one actor per JWKS URL, shared by every
/// verification that trusts it.
///
/// - Cached for the response's `Cache-Control: max-age` (minus `Age`), clamped to
///   [``Policy/minimumCacheAge``, ``Policy/maximumCacheAge``]; ``Policy/defaultCacheAge`` when absent.
/// - Revalidated with `If-None-Match` when the provider sent an `ETag` (a 304 keeps the keys).
/// - Concurrent misses share one fetch (single flight).
/// - An unknown `kid` triggers at most one refetch per ``Policy/unknownKeyCooldown``, so a
///   flood of tokens with made-up kids cannot hammer the provider.
/// - When the provider is down, the last good keys are served for ``Policy/staleIfError``
///   past their freshness, and failed fetches are not retried before the cool-down.
/// - Responses are bounded in time and size (``Policy/timeout``, ``Policy/limits``).
///
/// ```swift
/// let jwks = try RemoteJWKS(url: "https://www.googleapis.com/oauth2/v3/certs", transport: transport)
/// let keys = try await jwks.keys()
/// ```
public actor RemoteJWKS {
    /// Cache and fetch bounds.
    public struct Policy: Sendable {
        public var minimumCacheAge: TimeInterval = 60
        public var maximumCacheAge: TimeInterval = 24 * 3600
        /// Freshness when the response has no usable `max-age`.
        public var defaultCacheAge: TimeInterval = 600
        /// Minimum time between two fetches triggered by unknown kids, and between retries after a failure.
        public var unknownKeyCooldown: TimeInterval = 30
        /// How long past their freshness the last good keys are served while fetches fail.
        public var staleIfError: TimeInterval = 3600
        /// Time allowed for one fetch.
        public var timeout: TimeInterval = 5
        /// Bounds on the JWKS document (bytes, number of keys).
        public var limits: JWKSet.Limits = .default

        public init(
            minimumCacheAge: TimeInterval = 60, maximumCacheAge: TimeInterval = 24 * 3600, defaultCacheAge: TimeInterval = 600,
            unknownKeyCooldown: TimeInterval = 30, staleIfError: TimeInterval = 3600, timeout: TimeInterval = 5,
            limits: JWKSet.Limits = .default
        ) {
            self.minimumCacheAge = minimumCacheAge
            self.maximumCacheAge = maximumCacheAge
            self.defaultCacheAge = defaultCacheAge
            self.unknownKeyCooldown = unknownKeyCooldown
            self.staleIfError = staleIfError
            self.timeout = timeout
            self.limits = limits
        }
        public static let `default` = Policy()
    }

    private struct Entry {
        var keys: JWKSet
        var etag: String?
        var freshUntil: Date
    }

    public nonisolated let url: String
    private let transport: any HTTPTransport
    private let clock: TokenClock
    private let policy: Policy

    private var entry: Entry?
    private var inFlight: Task<JWKSet, any Error>?
    private var lastAttempt: Date?
    private var lastFailure: (at: Date, error: TokenError)?
    /// Number of HTTP requests made (304 revalidations included).
    public private(set) var fetchCount = 0
    /// Counts the key sets fetched (a 304 keeps the set and the number): a cache of what these
    /// keys verified is valid while it stays the same.
    public private(set) var keysGeneration = 0

    /// - Throws: `invalid_configuration` when `url` is not https (or http on loopback).
    public init(url: String, transport: any HTTPTransport, clock: TokenClock = .system, policy: Policy = .default) throws {
        self.url = try ProviderURL.validate(url, what: "JWKS URL")
        self.transport = transport
        self.clock = clock
        self.policy = policy
    }

    /// The current keys: cached while fresh, else fetched (or revalidated).
    /// - Throws: `provider_unavailable` when no usable keys can be had.
    public func keys() async throws -> JWKSet {
        let now = clock.now()
        if let entry, now < entry.freshUntil { return entry.keys }
        return try await refresh(now: now, force: false)
    }

    /// ``keys()`` with its ``keysGeneration``.
    public func keysWithGeneration() async throws -> (keys: JWKSet, generation: Int) {
        let keys = try await keys()
        return (keys, keysGeneration)
    }

    /// ``keysAfterUnknownKey()`` with its ``keysGeneration``.
    public func keysAfterUnknownKeyWithGeneration() async throws -> (keys: JWKSet, generation: Int) {
        let keys = try await keysAfterUnknownKey()
        return (keys, keysGeneration)
    }

    /// Keys after a token named a key the current set lacks: refetched once, unless a fetch
    /// happened within the cool-down, in which case the current keys are returned unchanged.
    /// - Throws: `provider_unavailable` when no usable keys can be had.
    public func keysAfterUnknownKey() async throws -> JWKSet {
        let now = clock.now()
        if let inFlight { return try await inFlight.value }
        if let lastAttempt, now.timeIntervalSince(lastAttempt) < policy.unknownKeyCooldown, let entry {
            return entry.keys
        }
        return try await refresh(now: now, force: true)
    }

    private func refresh(now: Date, force: Bool) async throws -> JWKSet {
        if let inFlight { return try await inFlight.value }
        // After a failure, do not retry before the cool-down; serve stale keys meanwhile.
        if let failure = lastFailure, now.timeIntervalSince(failure.at) < policy.unknownKeyCooldown {
            if let stale = usableStale(now: now) { return stale }
            throw failure.error
        }
        let task = Task { try await self.fetch() }
        inFlight = task
        return try await task.value
    }

    private func usableStale(now: Date) -> JWKSet? {
        guard let entry, now < entry.freshUntil.addingTimeInterval(policy.staleIfError) else { return nil }
        return entry.keys
    }

    private func fetch() async throws -> JWKSet {
        defer { inFlight = nil }
        let started = clock.now()
        lastAttempt = started
        fetchCount += 1
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if let etag = entry?.etag { headers.append(("If-None-Match", etag)) }
        do {
            var request = HTTPRequest(url: url, headers: headers, timeout: policy.timeout, maxResponseBytes: policy.limits.maxBytes)
            request.followsCrossOriginRedirects = false  // keys come from the configured origin only
            // Messages reach clients (a login's 503): they name no URL; `detail` (the log) does.
            request.name = "the provider's key set"
            let response = try await transport.send(request)
            let now = clock.now()
            let age = freshness(response)
            if response.status == 304, var entry {
                entry.freshUntil = now.addingTimeInterval(age)
                if let etag = response.header("etag") { entry.etag = etag }
                self.entry = entry
                lastFailure = nil
                return entry.keys
            }
            guard response.status == 200 else {
                throw unavailable("answered HTTP \(response.status)")
            }
            let keys: JWKSet
            do { keys = try JWKSet(jsonBytes: response.body, limits: policy.limits) } catch let e as TokenError {
                throw unavailable("is unusable: \(e.message)")
            }
            guard !keys.keys.isEmpty else {
                throw unavailable("holds no usable key")
            }
            guard !keys.keys.contains(where: { $0.keyType == .oct }) else {
                throw unavailable("publishes a secret (oct) key; refusing it")
            }
            entry = Entry(keys: keys, etag: response.header("etag"), freshUntil: now.addingTimeInterval(age))
            keysGeneration += 1
            lastFailure = nil
            return keys
        } catch let error as TokenError {
            let e = error.code == .providerUnavailable ? error : TokenError(.providerUnavailable, error.message)
            lastFailure = (clock.now(), e)
            if let stale = usableStale(now: clock.now()) { return stale }
            throw e
        }
    }

    /// `provider_unavailable` "the provider's key set <what>"; the URL only in `detail` (for the log).
    private func unavailable(_ what: String) -> TokenError {
        var error = TokenError(.providerUnavailable, "the provider's key set " + what)
        error.detail = "GET \(ProviderURL.shown(url)) \(what)"
        return error
    }

    /// RFC 9111 §5.2.2.1 max-age, minus §5.1 Age; no-store/no-cache mean "revalidate soon" (the floor).
    private func freshness(_ response: HTTPResponse) -> TimeInterval {
        var seconds: TimeInterval? = nil
        if let cc = response.header("cache-control")?.lowercased() {
            for directive in cc.split(separator: ",") {
                let d = directive.trimmingCharacters(in: .whitespaces)
                if d == "no-store" || d == "no-cache" { seconds = 0; break }
                if d.hasPrefix("max-age="), let v = Double(d.dropFirst(8).trimmingCharacters(in: CharacterSet(charactersIn: "\" "))), v.isFinite {
                    seconds = v
                }
            }
        }
        guard var s = seconds else { return policy.defaultCacheAge }
        if let age = response.header("age").flatMap(Double.init), age.isFinite, age > 0 { s -= age }
        return min(max(s, policy.minimumCacheAge), policy.maximumCacheAge)
    }
}
