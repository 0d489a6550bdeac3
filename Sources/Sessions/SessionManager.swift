import Foundation
import JOSE

/// Signs users in and keeps them signed in: users and identities, token pairs, rotation with
/// reuse detection, logout, purge, and verification of the access tokens it issues.
///
/// ```swift
/// let store = try await SQLiteSessionStore.open(path: "sessions.sqlite")
/// let sessions = SessionManager(store: store,
///                               configuration: SessionConfiguration(issuer: "https://auth.example.com", audience: "api"))
/// let signIn = try await sessions.signIn(with: identity)        // finds or creates the user
/// let next = try await sessions.refresh(signIn.tokens.refreshToken)
/// ```
public struct SessionManager: Sendable {
    public let store: any SessionStore
    public let configuration: SessionConfiguration
    /// The issuer's signing keys, in the same store.
    public let keyRing: KeyRing
    let hooks: TestHooks

    public init(store: any SessionStore, configuration: SessionConfiguration) {
        self.store = store
        self.configuration = configuration
        self.keyRing = KeyRing(store: store, configuration: configuration)
        self.hooks = TestHooks()
    }

    /// A fault injected between spending a refresh token and storing its successor, so that a
    /// test can show the transaction loses nothing.
    @_spi(Testing) public func failAfterSpending(_ error: (any Error & Sendable)?) { hooks.setAfterSpend(error) }
}

/// Test-only faults. A reference shared by copies of one ``SessionManager``.
final class TestHooks: @unchecked Sendable {
    private let lock = NSLock()
    private var afterSpend: (any Error & Sendable)?

    func setAfterSpend(_ error: (any Error & Sendable)?) { lock.withLock { afterSpend = error } }
    func checkAfterSpend() throws { if let e = lock.withLock({ afterSpend }) { throw e } }
}
