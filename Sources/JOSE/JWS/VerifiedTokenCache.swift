#if canImport(FoundationEssentials)
    import FoundationEssentials  // not all of Foundation: see docs/performance.md, "Start-up"
#else
    import Foundation
#endif
import Synchronization

/// Bounds of a ``VerifiedTokenCache``.
public struct VerifiedTokenCacheLimits: Sendable, Hashable {
    /// The most tokens kept at once. Default 10,000.
    public var maxEntries: Int
    /// The most bytes of token text kept at once (each entry counts its token twice: the key and
    /// the claims it holds). Default 16 MiB.
    public var maxBytes: Int

    public init(maxEntries: Int = 10_000, maxBytes: Int = 16 << 20) {
        self.maxEntries = max(1, maxEntries)
        self.maxBytes = max(1, maxBytes)
    }
}

/// The tokens a ``JWTVerifier`` has already verified, keyed by their exact bytes, as API gateways
/// keep them: a resource server sees the same access token on every request of a session.
///
/// A hit skips the signature and all JSON work and re-checks only what time changes: `exp` and
/// `nbf` against the verifier's clock and leeway. A token past its `exp` leaves the cache and goes
/// through the full verification again, which refuses it with its usual error. Nothing that failed
/// is cached. The cache belongs to one verifier configuration: ``JWTVerifier`` starts an empty one
/// whenever its options change, and new keys mean a new verifier, so a cached answer is always the
/// answer of the keys and options it was verified with. Bounded by entries and bytes; the oldest
/// entries go first.
///
/// ```swift
/// let verifier = JWTVerifier(keys: keys, options: options, cache: VerifiedTokenCacheLimits())
/// let first = try verifier.verify(jwt)    // signature, JSON, claims; then cached
/// let again = try verifier.verify(jwt)    // exp/nbf only
/// ```
public final class VerifiedTokenCache: Sendable {
    struct Entry {
        let token: VerifiedToken<ClaimSet>
        let document: JSONDocument
        let expiresAt: Double?
        let notBefore: Double?
        let bytes: Int
    }
    private struct State {
        var entries: [String: Entry] = [:]
        /// Insertion order, oldest first from `head`. A key may be stale (removed already, or
        /// re-inserted later, so that it goes a little early): eviction skips what is gone.
        var order: [String] = []
        var head = 0
        var bytes = 0
        var hits = 0
        var misses = 0
    }

    public let limits: VerifiedTokenCacheLimits
    private let state = Mutex(State())

    public init(limits: VerifiedTokenCacheLimits = VerifiedTokenCacheLimits()) { self.limits = limits }

    /// Tokens held now.
    public var count: Int { state.withLock { $0.entries.count } }
    /// Lookups answered from the cache, and lookups that were not, since the cache was made.
    public var statistics: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }

    /// The cached verification of `token` if it is still within `exp`/`nbf` at `now` with `leeway`.
    func lookup(_ token: String, now: Double, leeway: Double) -> Entry? {
        state.withLock { s in
            guard let e = s.entries[token] else {
                s.misses += 1
                return nil
            }
            // The same comparisons as ClaimValidator: RFC 7519 §4.1.4 (exp) and §4.1.5 (nbf).
            if let exp = e.expiresAt, now >= exp + leeway {
                s.entries[token] = nil
                s.bytes -= e.bytes
                s.misses += 1
                return nil
            }
            if let nbf = e.notBefore, now + leeway < nbf {
                s.misses += 1
                return nil
            }
            s.hits += 1
            return e
        }
    }

    func insert(_ token: String, _ entry: Entry) {
        guard entry.bytes <= limits.maxBytes else { return }
        state.withLock { s in
            if let old = s.entries.updateValue(entry, forKey: token) {
                s.bytes -= old.bytes
            } else {
                s.order.append(token)
            }
            s.bytes += entry.bytes
            while s.entries.count > limits.maxEntries || s.bytes > limits.maxBytes, s.head < s.order.count {
                let oldest = s.order[s.head]
                s.head += 1
                if let gone = s.entries.removeValue(forKey: oldest) { s.bytes -= gone.bytes }
            }
            // Drop the consumed prefix of the order once it is half the array.
            if s.head > 1024, s.head * 2 > s.order.count {
                s.order.removeFirst(s.head)
                s.head = 0
            }
        }
    }

    /// Forgets every token.
    public func removeAll() {
        state.withLock { s in
            s.entries.removeAll()
            s.order.removeAll()
            s.head = 0
            s.bytes = 0
        }
    }
}
