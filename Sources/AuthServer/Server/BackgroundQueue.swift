import Foundation
import Logging
import ServiceLifecycle

/// Work that follows a request without holding up its answer (Apple token revocations, the
/// `user_deleted` webhook): retried with growing pauses, bounded in attempts and in queue length,
/// run by a `Service` in the server's group and stopped with it.
final class BackgroundQueue: Service, Sendable {
    struct Job: Sendable {
        /// For log lines: what the job does (no secrets).
        let name: String
        let app: String
        let work: @Sendable () async throws -> Void
    }

    private let stream: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    private let logger: Logger
    let attempts: Int
    let pause: Duration

    /// - Parameters: `capacity` jobs wait at most (the oldest are dropped, and logged, beyond it).
    init(logger: Logger, capacity: Int = 1000, attempts: Int = 5, pause: Duration = .seconds(1)) {
        (stream, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .bufferingNewest(capacity))
        self.logger = logger
        self.attempts = attempts
        self.pause = pause
    }

    /// Queues a job; runs once the service runs.
    func add(_ name: String, app: String, _ work: @escaping @Sendable () async throws -> Void) {
        if case .dropped(let old) = continuation.yield(Job(name: name, app: app, work: work)) {
            logger.error("background queue full: job dropped", metadata: ["job": .string(old.name), "app": .string(old.app)])
        }
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            for await job in stream.cancelOnGracefulShutdown() {
                group.addTask { await self.perform(job) }
            }
        }
    }

    private func perform(_ job: Job) async {
        for attempt in 1...attempts {
            do {
                try await job.work()
                return
            } catch {
                logger.warning(
                    "background job failed",
                    metadata: [
                        "job": .string(job.name), "app": .string(job.app), "attempt": .stringConvertible(attempt),
                        "error": .error(error),
                    ])
                guard attempt < attempts, !Task.isShuttingDownGracefully else { break }
                let wait = pause * (attempt * attempt)
                do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) } } catch { break }  // the server is stopping
            }
        }
        logger.error("background job given up", metadata: ["job": .string(job.name), "app": .string(job.app)])
    }
}
