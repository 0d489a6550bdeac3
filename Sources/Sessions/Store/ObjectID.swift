import Foundation
import JOSE

/// A BSON ObjectId, as the BSON specification defines it and the Realm SDKs parse it: 12 bytes,
/// a 4-byte big-endian Unix time in seconds, a 5-byte random value chosen once per process, and
/// a 3-byte big-endian counter that starts at a random value. Its text is 24 lower-case hex
/// digits (``hex``); ``init(hex:)`` also reads upper-case digits, as Extended JSON's `$oid` may
/// carry them.
///
/// ```swift
/// let id = try ObjectID.make(at: 1_700_000_000)   // "65538000" + 16 hex digits
/// ObjectID(hex: id.hex) == id                      // true
/// ```
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The 12 bytes.
    public let bytes: [UInt8]

    /// Reads 24 hex digits (either case); `nil` for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 24, let bytes = Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// A new ObjectId for the time `seconds` (Unix seconds, taken modulo 2^32 as the spec's
    /// 4 bytes hold it): unique within this process (the counter) and, with the process's
    /// random value, across processes.
    /// - Throws: `internal_error` when the random generator fails.
    public static func make(at seconds: Int64) throws -> ObjectID {
        let (random, counter) = try Generator.shared.next()
        let time = UInt32(truncatingIfNeeded: seconds)
        var bytes = withUnsafeBytes(of: time.bigEndian) { Array($0) }
        bytes += random
        bytes += [UInt8(truncatingIfNeeded: counter >> 16), UInt8(truncatingIfNeeded: counter >> 8), UInt8(truncatingIfNeeded: counter)]
        return ObjectID(bytes: bytes)
    }

    /// 24 lower-case hex digits.
    public var hex: String { Hex.encode(bytes) }

    public var description: String { hex }

    /// The Unix time in seconds of its first four bytes.
    public var seconds: Int64 { Int64(bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }

    /// The process's random value and counter, made on first use.
    private final class Generator: @unchecked Sendable {
        static let shared = Generator()
        private let lock = NSLock()
        private var state: (random: [UInt8], counter: UInt32)?

        func next() throws -> (random: [UInt8], counter: UInt32) {
            try lock.withLock {
                if state == nil {
                    let seed = try SecureRandom.bytes(8)
                    state = (Array(seed[0..<5]), UInt32(seed[5]) << 16 | UInt32(seed[6]) << 8 | UInt32(seed[7]))
                }
                let current = state!
                state!.counter = (current.counter + 1) & 0xFF_FFFF
                return current
            }
        }
    }
}
