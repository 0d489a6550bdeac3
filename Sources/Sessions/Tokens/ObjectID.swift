import JOSE
import Synchronization

/// BSON ObjectIds as 24 lower-case hex digits, the id shape the App Services clients parse
/// (realm-web's `new ObjectId(hex)` throws on anything else). The BSON spec's 12 bytes: a 4-byte
/// big-endian Unix time in seconds, 5 random bytes drawn once per process, and a 3-byte
/// big-endian counter that starts at a random value and wraps.
public enum ObjectID {
    private static let process = ProcessPart()

    /// A new ObjectId for the time `unixSeconds` (the caller's clock).
    /// - Throws: `internal_error` when the random generator fails.
    public static func make(unixSeconds: Int64) throws -> String {
        let (random, count) = try process.next()
        let time = UInt32(truncatingIfNeeded: unixSeconds)
        var bytes: [UInt8] = [UInt8(time >> 24), UInt8(time >> 16 & 0xFF), UInt8(time >> 8 & 0xFF), UInt8(time & 0xFF)]
        bytes += random
        bytes += [UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        return hex(bytes)
    }

    /// `true` for 24 hex digits, either case.
    public static func isValid(_ text: String) -> Bool {
        text.utf8.count == 24 && text.utf8.allSatisfy { c in (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x66) }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }

    /// The per-process random part and the counter, made on first use.
    private final class ProcessPart: Sendable {
        private let state = Mutex<(random: [UInt8], counter: UInt32)?>(nil)

        func next() throws -> ([UInt8], UInt32) {
            try state.withLock { state in
                if state == nil {
                    let seed = try SecureRandom.bytes(8)
                    state = (Array(seed.prefix(5)), UInt32(seed[5]) << 16 | UInt32(seed[6]) << 8 | UInt32(seed[7]))
                }
                state!.counter = (state!.counter &+ 1) & 0xFF_FFFF
                return (state!.random, state!.counter)
            }
        }
    }
}
