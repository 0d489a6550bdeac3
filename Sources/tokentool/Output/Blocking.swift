import Dispatch

/// Waits for async work from a synchronous command (only `verify --jwks URL` needs one).
/// The work runs on the cooperative pool while the calling thread, never one of the pool's,
/// waits on a semaphore.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = BlockingOutcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { outcome.result = .success(try await body()) } catch { outcome.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try outcome.result!.get()
}

/// `runBlocking`'s result slot: written once before the semaphore is signalled, read after the wait.
private final class BlockingOutcome<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
