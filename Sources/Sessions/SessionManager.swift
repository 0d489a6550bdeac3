import Foundation
import JOSE

/// Signs users in and keeps them signed in: users and identities, token pairs, rotation with
/// reuse detection, logout, purge, and verification of the access tokens it issues.
///
/// A manager is one app's ``AppSessionPolicy`` on a store's ``SessionService``. A library or a
/// command that serves one app makes both from one ``SessionConfiguration``:
///
/// ```swift
/// let store = try await SQLiteSessionStore.open(path: "sessions.sqlite")
/// let sessions = SessionManager(store: store,
///                               configuration: SessionConfiguration(issuer: "https://auth.example.com", audience: "api"))
/// let signIn = try await sessions.signIn(with: identity)        // finds or creates the user
/// let next = try await sessions.refresh(signIn.tokens.refreshToken)
/// ```
///
/// Several apps on one store share one service (one key ring, one sweep):
/// `SessionManager(service: service, policy: policy)` for each.
public struct SessionManager: Sendable {
    /// What the store's apps share: the store, the key ring, the issuer, the clock, the sweep.
    public let service: SessionService
    /// This app's part: audience, client id, users, lifetimes, reuse grace.
    public let policy: AppSessionPolicy
    /// The service's settings and the policy's in one.
    public let configuration: SessionConfiguration
    public var store: any SessionStore { service.store }
    /// The issuer's signing keys, in the same store (the service's).
    public var keyRing: KeyRing { service.keyRing }
    var hooks: TestHooks { service.hooks }

    /// A manager with a service of its own, for a library or a command that serves one app.
    public init(store: any SessionStore, configuration: SessionConfiguration) {
        self.init(service: SessionService(store: store, configuration: configuration.service), policy: configuration.policy)
    }

    /// The manager of the app of `policy` on a shared `service`.
    public init(service: SessionService, policy: AppSessionPolicy) {
        self.service = service
        self.policy = policy
        self.configuration = SessionConfiguration(service: service.configuration, policy: policy)
    }

    /// A fault injected between spending a refresh token and storing its successor, so that a
    /// test can show the transaction loses nothing (for every manager of the service).
    @_spi(Testing) public func failAfterSpending(_ error: (any Error & Sendable)?) { hooks.setAfterSpend(error) }
}

/// Test-only faults. A reference shared by copies of one ``SessionService``.
final class TestHooks: @unchecked Sendable {
    private let lock = NSLock()
    private var afterSpend: (any Error & Sendable)?

    func setAfterSpend(_ error: (any Error & Sendable)?) { lock.withLock { afterSpend = error } }
    func checkAfterSpend() throws { if let e = lock.withLock({ afterSpend }) { throw e } }
}
