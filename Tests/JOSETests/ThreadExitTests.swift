import Foundation
import JOSE
import Testing

/// Threads that use OpenSSL and then exit. OpenSSL frees a thread's error queue and random
/// generators at its exit; when its per-thread keys were created out of order, glibc had
/// cleared them before that clean-up ran and each exiting thread lost about 3.3 KB
/// (Sources/COpenSSL/thread_keys.c). The loss shows under `make test`'s LeakSanitizer, which
/// checks this process at exit (run alone without that file's constructor, this test leaks 16
/// threads' state); the assertions check the threads really used both.
@Suite struct ThreadExitTests {
    @Test func threadsThatUsedOpenSSLExitCleanly() throws {
        // What made the keys go out of order: keys below OpenSSL's first one freed before its
        // later ones were made. In a process where OpenSSL starts here (this test alone), that
        // order comes back without the load-time constructor.
        var keys = [pthread_key_t](repeating: 0, count: 8)
        for i in keys.indices { #expect(pthread_key_create(&keys[i], nil) == 0) }
        #expect(SHA2.sha256(Array("start OpenSSL".utf8)).count == 32)
        for key in keys { #expect(pthread_key_delete(key) == 0) }

        let results = ThreadResults()
        var threads: [Thread] = []
        for _ in 0..<16 {
            let thread = Thread {
                let random = (try? SecureRandom.bytes(32)) ?? []
                // A refused key leaves reasons on the thread's error queue on the way.
                let zero = String(repeating: "A", count: 43)  // 32 zero bytes: (0, 0) is not on P-256
                let refused = (try? JWK(json: #"{"kty":"EC","crv":"P-256","x":"\#(zero)","y":"\#(zero)"}"#)) == nil
                results.add(random, refused: refused)
            }
            threads.append(thread)
            thread.start()
        }
        #expect(results.wait(for: threads.count, seconds: 30), "the threads did not finish")
        let (randoms, refusals) = results.snapshot
        #expect(randoms.count == threads.count && Set(randoms).count == threads.count && randoms.allSatisfy { $0.count == 32 })
        #expect(refusals == threads.count)
    }
}

private final class ThreadResults: @unchecked Sendable {
    private let condition = NSCondition()
    private var randoms: [[UInt8]] = []
    private var refusals = 0

    func add(_ random: [UInt8], refused: Bool) {
        condition.lock()
        randoms.append(random)
        if refused { refusals += 1 }
        condition.broadcast()
        condition.unlock()
    }

    func wait(for count: Int, seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while randoms.count < count { if !condition.wait(until: deadline) { return false } }
        return true
    }

    var snapshot: ([[UInt8]], Int) {
        condition.lock()
        defer { condition.unlock() }
        return (randoms, refusals)
    }
}
