import Foundation
public import JOSE

/// Hashes and verifies passwords with scrypt on threads of their own, a few at a time.
///
/// Each scrypt call at the default parameters takes 128 MiB and about a third of a second of
/// one core: run on the cooperative pool or an event loop, a burst of sign-ins would stall
/// every other request and could exhaust memory. So calls run on dispatch threads, at most
/// ``concurrency`` at once (memory ≤ concurrency × ``JOSE/Scrypt/Parameters/memoryBytes``); up
/// to ``maxWaiting`` more wait their turn in order, and beyond that a call is refused at once
/// with `too_many_requests` rather than queued without bound.
///
/// ```swift
/// let hasher = PasswordHasher(concurrency: 2)
/// let stored = try await hasher.hash("correct horse")
/// let ok = try await hasher.verify("correct horse", against: stored)
/// ```
public struct PasswordHasher: Sendable {
    /// The parameters of new hashes; older hashes with weaker ones are re-hashed at sign-in.
    public let parameters: Scrypt.Parameters
    /// How many hashes may run at once.
    public let concurrency: Int
    /// How many more may wait for a turn.
    public let maxWaiting: Int
    let gate: HashGate
    /// A hash of nothing anyone knows, verified against for unknown emails so that their
    /// sign-in takes as long as a known one's.
    let dummy: PasswordHash

    /// - Throws: `invalid_configuration` for parameters scrypt refuses or limits below 1.
    public init(parameters: Scrypt.Parameters = .default, concurrency: Int = 2, maxWaiting: Int = 256) throws {
        guard concurrency >= 1, maxWaiting >= 0 else {
            throw TokenError(.invalidConfiguration, "password hashing concurrency must be at least 1")
        }
        do { try parameters.validate() } catch {
            throw TokenError(.invalidConfiguration, "scrypt parameters \(parameters) are out of range")
        }
        self.parameters = parameters
        self.concurrency = concurrency
        self.maxWaiting = maxWaiting
        gate = HashGate(limit: concurrency, maxWaiting: maxWaiting)
        // Random salt and key: derives at full cost and matches nothing.
        let salt = try RandomID.base64URL(bytes: PasswordHash.saltBytes)
        let key = try RandomID.base64URL(bytes: PasswordHash.keyBytes)
        dummy = try PasswordHash(parsing: "$scrypt$\(parameters)$\(salt)$\(key)")
    }

    /// Hashes `password` (NFC-normalised first) with a fresh salt.
    /// - Throws: `too_many_requests` when the queue is full; `invalid_input` for an over-long password.
    public func hash(_ password: String) async throws -> PasswordHash {
        let bytes = PasswordRule.bytes(of: password)
        let parameters = parameters
        return try await run { try PasswordHash.make(password: bytes, parameters: parameters) }
    }

    /// `true` when `password` (NFC-normalised first) matches `stored`, compared in constant time.
    /// - Throws: `too_many_requests` when the queue is full.
    public func verify(_ password: String, against stored: PasswordHash) async throws -> Bool {
        let bytes = PasswordRule.bytes(of: password)
        return try await run { try stored.verify(password: bytes) }
    }

    /// Spends the time of one verification and answers `false`.
    func verifyDummy(_ password: String) async throws -> Bool {
        _ = try await verify(password, against: dummy)
        return false
    }

    /// How many scrypt calls this hasher has started (tests compare the work of two answers).
    @_spi(Testing) public func derivations() async -> Int { await gate.started }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await gate.acquire()
        defer { Task { await gate.release() } }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }
}

/// A counting semaphore for async code, FIFO, with a bounded queue.
actor HashGate {
    private let limit: Int
    private let maxWaiting: Int
    private var running = 0
    private(set) var started = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int, maxWaiting: Int) {
        self.limit = limit
        self.maxWaiting = maxWaiting
    }

    func acquire() async throws {
        if running < limit {
            running += 1
            started += 1
            return
        }
        guard waiters.count < maxWaiting else {
            throw TokenError(.tooManyRequests, "too many password checks are waiting; try again shortly")
        }
        await withCheckedContinuation { waiters.append($0) }
        started += 1
    }

    func release() {
        if waiters.isEmpty { running -= 1 } else { waiters.removeFirst().resume() }  // the turn passes on, still running
    }
}
