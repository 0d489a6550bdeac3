import Synchronization

/// At most `limit` requests handled at once: past it, a request is refused at once (503 with
/// `Retry-After`) rather than queued, so that under a load above capacity the requests let in
/// keep their latency (about `limit` ÷ the capacity) instead of every one waiting behind the queue.
final class InFlightLimit: Sendable {
    let limit: Int
    private let count = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot; `false` when all are taken (nothing taken then).
    func enter() -> Bool {
        if count.wrappingAdd(1, ordering: .acquiring).newValue <= limit { return true }
        count.wrappingSubtract(1, ordering: .releasing)
        return false
    }

    /// Gives back the slot ``enter()`` took.
    func leave() {
        count.wrappingSubtract(1, ordering: .releasing)
    }
}
