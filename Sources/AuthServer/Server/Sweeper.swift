import Foundation
import Logging
import ServiceLifecycle
import Sessions

/// Background upkeep, stopped with the server: anonymous users idle for 90 days are removed,
/// dead sessions, spent throttle events and account tokens purged. Runs at start and then every `interval`.
struct Sweeper: Service {
    /// The store-wide service it sweeps.
    let service: SessionService
    /// How long a spent token's successor is kept: the largest reuse grace of any app.
    let grace: Int64
    let logger: Logger
    var interval: Duration = .seconds(3600)
    /// How long an anonymous user may go unused.
    static let anonymousIdle: Int64 = 90 * 86_400

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let removed = try await service.removeIdleUsers(onlyProvider: AnonymousLogin.name, idleSeconds: Self.anonymousIdle)
                let purged = try await service.sweep(grace: grace)
                // Throttle events past their window; used or expired confirmation and reset tokens.
                let throttled = try await Throttle(store: service.store, clock: service.configuration.clock).purge()
                if removed > 0 || purged.sessions > 0 || throttled > 0 {
                    logger.info(
                        "sweep",
                        metadata: [
                            "anonymous_users_removed": .stringConvertible(removed), "sessions_purged": .stringConvertible(purged.sessions),
                            "account_rows_purged": .stringConvertible(throttled),
                        ])
                }
            } catch {
                logger.warning("sweep failed", metadata: ["error": .error(error)])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
