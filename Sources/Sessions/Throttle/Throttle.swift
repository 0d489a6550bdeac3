import Foundation
public import JOSE

/// A limit `N/DURATION`: N events in any DURATION window; the next one is refused.
public struct RateLimit: Sendable, Hashable, CustomStringConvertible {
    public var count: Int
    /// The window, in seconds.
    public var window: Int64

    public init(count: Int, window: Int64) {
        self.count = count
        self.window = window
    }

    /// Reads `300/5m`: a count, a slash, one number and one unit (`s`, `m`, `h`, `d`).
    /// - Throws: `invalid_configuration` for anything else, a count outside 1…100000 or a window
    ///   outside 1 s…30 d.
    public init(parsing text: String) throws {
        let bad = TokenError(.invalidConfiguration, "a rate is N/DURATION, like 10/15m (units s, m, h, d), got \"\(text.prefix(32))\"")
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard text.utf8.count <= 24, parts.count == 2, !parts[0].isEmpty, parts[0].allSatisfy({ ("0"..."9").contains($0) }),
            let n = Int(parts[0]), (1...100_000).contains(n),
            let window = DurationText.seconds(parts[1], units: "smhd"), (1...30 * 86_400).contains(window)
        else { throw bad }
        self.init(count: n, window: window)
    }

    public var description: String { "\(count)/\(window)s" }
}

/// Counts events per key in the store, so that limits hold across every instance sharing it.
///
/// Each counted event is one row kept for its window; counting and recording happen atomically
/// with the key locked (``SessionStore/countThrottleEvent(key:since:limit:at:expiresAt:record:)``),
/// so concurrent requests on any instance never both take the last slot. Keys are stored as
/// SHA-256 digests: the table holds no address or email.
///
/// ```swift
/// let throttle = Throttle(store: store)
/// if case .refused(let retryAfter) = try await throttle.hit("login_addr:203.0.113.7", limit: RateLimit(parsing: "300/5m")) {
///     // answer 429 with Retry-After: retryAfter
/// }
/// ```
public struct Throttle: Sendable {
    /// The answer of ``hit(_:limit:)`` and ``check(_:limit:)``.
    public enum Decision: Sendable, Hashable {
        case allowed
        /// Refused; the oldest counted event leaves the window in `retryAfter` seconds (≥ 1).
        case refused(retryAfter: Int64)
    }

    public let store: any SessionStore
    public var clock: TokenClock

    public init(store: any SessionStore, clock: TokenClock = .system) {
        self.store = store
        self.clock = clock
    }

    /// Counts one event on `key` unless `limit` is reached; a refused event is not counted.
    /// - Throws: `store_unavailable`.
    public func hit(_ key: String, limit: RateLimit) async throws -> Decision {
        try await decide(key, limit: limit, record: true)
    }

    /// Whether an event on `key` would be allowed now, counting nothing.
    /// - Throws: `store_unavailable`.
    public func check(_ key: String, limit: RateLimit) async throws -> Decision {
        try await decide(key, limit: limit, record: false)
    }

    /// Deletes events past their window, and used or expired one-time tokens (confirm and reset links).
    /// - Returns: the number of rows removed.
    public func purge() async throws -> Int {
        let now = self.now
        return try await store.transaction { tx in try await tx.purgeAccounts(now: now) }
    }

    private func decide(_ key: String, limit: RateLimit, record: Bool) async throws -> Decision {
        let digest = Self.storedKey(key)
        let now = self.now
        let (count, oldest) = try await store.countThrottleEvent(
            key: digest, since: now - limit.window + 1, limit: limit.count, at: now, expiresAt: now + limit.window, record: record)
        return count >= limit.count ? .refused(retryAfter: max(1, (oldest ?? now) + limit.window - now)) : .allowed
    }

    static func storedKey(_ key: String) -> String { Base64URL.encode(SHA2.sha256(Array(key.utf8))) }

    var now: Int64 { Int64(clock.now().timeIntervalSince1970.rounded(.down)) }
}
