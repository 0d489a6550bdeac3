import Foundation
import JOSE

/// What one store's apps share: the store, its key ring (signing, the published JWKS, the
/// verifier), the issuer, the clock and the master key; the refresh-token lookup, access-token
/// verification for a set of audiences, introspection, revocation and the sweep. An app's
/// settings (audience, lifetimes, reuse grace, its users) are an ``AppSessionPolicy``; a
/// ``SessionManager`` is a service with one policy, and any number of managers may share one
/// service (and so one key ring and its caches).
///
/// ```swift
/// let service = SessionService(store: store, configuration: SessionServiceConfiguration(issuer: "https://auth.example.com"))
/// let shop = SessionManager(service: service, policy: AppSessionPolicy(audience: "shop", defaultClientID: "shop"))
/// let claims = try await service.verifyAccessToken(token, audiences: ["shop", "blog"])
/// _ = try await service.sweep(grace: 30)   // the largest reuse grace of the apps it serves
/// ```
public struct SessionService: Sendable {
    public let store: any SessionStore
    public let configuration: SessionServiceConfiguration
    /// The issuer's signing keys, in the same store.
    public let keyRing: KeyRing
    let hooks: TestHooks

    public init(store: any SessionStore, configuration: SessionServiceConfiguration) {
        self.store = store
        self.configuration = configuration
        self.keyRing = KeyRing(store: store, configuration: configuration)
        self.hooks = TestHooks()
    }

    /// The sweep: removes sessions that are revoked or past a lifetime (with their refresh
    /// tokens) and retired keys no longer published, and erases the sealed successors of tokens
    /// spent more than `grace` seconds ago. Run it periodically (`tokentool token purge`).
    /// - Parameter grace: how long a spent token's successor is kept: the largest
    ///   ``AppSessionPolicy/reuseGraceInterval`` of the apps on this store, so that no app's client
    ///   loses the successor it may still retry for.
    /// - Throws: `store_unavailable`.
    public func sweep(grace: Int64) async throws -> PurgeCounts {
        let now = configuration.now
        let spentBefore = now - max(0, grace) - 1
        return try await store.transaction { tx in
            var counts = try await tx.purge(now: now)
            counts.spentSuccessors = try await tx.clearSpentSuccessors(usedBefore: spentBefore)
            return counts
        }
    }

    /// Deletes users whose only identities are of `provider` and who have not used a session for
    /// `idleSeconds` (anonymous users idle for 90 days), at most `limit` per call, whatever their app.
    /// - Returns: how many were deleted.
    /// - Throws: `store_unavailable`.
    public func removeIdleUsers(onlyProvider provider: String, idleSeconds: Int64, limit: Int = 500) async throws -> Int {
        let before = configuration.now - idleSeconds
        let ids = try await store.transaction { tx in try await tx.idleUsers(onlyProvider: provider, before: before, limit: limit) }
        var removed = 0
        for id in ids {
            do {
                try await deleteUser(id: id)
                removed += 1
            } catch let e as TokenError where e.code == .userNotFound {
                continue  // deleted meanwhile
            }
        }
        return removed
    }

    /// Deletes a user with its identities and every session, in one transaction, and
    /// nothing else.
    /// - Throws: `user_not_found`, `store_unavailable`.
    public func deleteUser(id: String) async throws {
        guard SessionManager.isStorableID(id, maxBytes: 255) else { throw TokenError(.userNotFound, "no user has that id") }
        let deleted = try await store.transaction { tx in try await tx.deleteUser(id: id) }
        guard deleted else { throw TokenError(.userNotFound, "no user has id \"\(id.prefix(64))\"") }
    }
}
