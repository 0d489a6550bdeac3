import JOSE

/// Bounds on a CBOR input (RFC 8949 §10: a decoder must bound what hostile input can make it do).
public struct CBORLimits: Sendable, Hashable {
    /// Bytes of input.
    public var maxBytes: Int
    /// Arrays and maps nested inside each other (a COSE key in an attestation object is depth 2).
    public var maxDepth: Int
    /// Items in one array, or entries in one map.
    public var maxItems: Int
    /// Data items in the whole input.
    public var maxTotalItems: Int

    public init(maxBytes: Int = 16 * 1024, maxDepth: Int = 8, maxItems: Int = 64, maxTotalItems: Int = 512) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxTotalItems = maxTotalItems
    }

    /// WebAuthn's objects: an attestation object with an x5c chain fits in 16 KiB.
    public static let webAuthn = CBORLimits()
}

/// A decoder of the CBOR that WebAuthn uses (RFC 8949; WebAuthn Level 2 §5.8.1, CTAP2's subset):
/// major types 0–5, and of major type 7 only `false`, `true` and `null`; definite lengths only;
/// map keys integers or text, never repeated. Tags, floats, `undefined`, other simple values,
/// indefinite lengths and reserved additional information are refused, as are text strings that
/// are not UTF-8 and any length larger than the bytes left. It does not ask for the canonical
/// (shortest) encoding: authenticators are not bound to it for what a relying party reads.
///
/// ```swift
/// let object = try CBOR.decode(attestationObject)          // the whole input, nothing after it
/// let (key, end) = try CBOR.decodePrefix(authData, from: 55) // an item followed by more bytes
/// ```
public enum CBOR {
    /// Decodes exactly one item filling `bytes`.
    /// - Throws: `malformed_cbor` for malformed input, a bound exceeded, or bytes after the item.
    public static func decode(_ bytes: [UInt8], limits: CBORLimits = .webAuthn) throws -> CBORValue {
        let (value, end) = try decodePrefix(bytes, from: 0, limits: limits)
        guard end == bytes.count else { throw refuse("\(bytes.count - end) bytes follow the CBOR item") }
        return value
    }

    /// Decodes the one item starting at `offset` and returns it with the offset just past it;
    /// bytes after it are the caller's (authenticator data puts extensions after the COSE key).
    /// - Throws: `malformed_cbor` for malformed input or a bound exceeded.
    public static func decodePrefix(_ bytes: [UInt8], from offset: Int, limits: CBORLimits = .webAuthn) throws -> (CBORValue, Int) {
        guard bytes.count <= limits.maxBytes else { throw refuse("the CBOR input is \(bytes.count) bytes; the limit is \(limits.maxBytes)") }
        guard offset >= 0, offset <= bytes.count else { throw refuse("the CBOR item starts past the end of the input") }
        var reader = Reader(bytes: bytes, position: offset, limits: limits)
        let value = try reader.item(depth: 0)
        return (value, reader.position)
    }

    static func refuse(_ message: String) -> TokenError { TokenError(.malformedCBOR, message) }

    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        let limits: CBORLimits
        var items = 0

        var remaining: Int { bytes.count - position }

        mutating func byte() throws -> UInt8 {
            guard position < bytes.count else { throw refuse("the CBOR input ends inside an item") }
            defer { position += 1 }
            return bytes[position]
        }

        /// The argument of an initial byte's additional information (RFC 8949 §3): 0–23 itself,
        /// 24–27 the next 1, 2, 4 or 8 bytes big-endian; 28–31 (reserved, indefinite) are refused.
        mutating func argument(_ info: UInt8) throws -> UInt64 {
            switch info {
            case 0...23: return UInt64(info)
            case 24...27:
                let width = 1 << Int(info - 24)
                guard remaining >= width else { throw refuse("the CBOR input ends inside an item's argument") }
                var value: UInt64 = 0
                for _ in 0..<width { value = value << 8 | UInt64(try byte()) }
                return value
            case 31: throw refuse("indefinite-length CBOR items are not accepted")
            default: throw refuse("reserved CBOR additional information \(info)")
            }
        }

        /// A length that must fit in the bytes left, each element taking at least `unit` bytes.
        mutating func length(_ info: UInt8, unit: Int) throws -> Int {
            let n = try argument(info)
            guard n <= UInt64(remaining / unit) else { throw refuse("a CBOR length (\(n)) exceeds the bytes left") }
            return Int(n)
        }

        mutating func item(depth: Int) throws -> CBORValue {
            items += 1
            guard items <= limits.maxTotalItems else { throw refuse("the CBOR input has more than \(limits.maxTotalItems) items") }
            let initial = try byte()
            let major = initial >> 5, info = initial & 0x1F
            switch major {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2:
                let n = try length(info, unit: 1)
                defer { position += n }
                return .bytes(Array(bytes[position..<(position + n)]))
            case 3:
                let n = try length(info, unit: 1)
                let slice = bytes[position..<(position + n)]
                position += n
                guard let text = String(validating: slice, as: UTF8.self) else { throw refuse("a CBOR text string is not UTF-8") }
                return .text(text)
            case 4, 5:
                guard depth < limits.maxDepth else { throw refuse("CBOR nesting is deeper than \(limits.maxDepth)") }
                let n = try length(info, unit: major == 4 ? 1 : 2)
                guard n <= limits.maxItems else {
                    throw refuse("a CBOR \(major == 4 ? "array" : "map") has \(n) items; the limit is \(limits.maxItems)")
                }
                if major == 4 {
                    var out: [CBORValue] = []
                    out.reserveCapacity(n)
                    for _ in 0..<n { out.append(try item(depth: depth + 1)) }
                    return .array(out)
                }
                var entries: [(key: CBORKey, value: CBORValue)] = []
                entries.reserveCapacity(n)
                for _ in 0..<n {
                    let key: CBORKey
                    switch try item(depth: depth + 1) {
                    case .text(let s): key = .text(s)
                    case let k:
                        guard let i = k.intValue else { throw refuse("a CBOR map key is neither an integer nor text") }
                        key = .int(i)
                    }
                    entries.append((key, try item(depth: depth + 1)))
                }
                guard let map = CBORMap(entries) else { throw refuse("a CBOR map repeats a key") }
                return .map(map)
            case 6: throw refuse("CBOR tags are not accepted")
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw refuse("CBOR simple value or float (additional information \(info)) is not accepted")
                }
            }
        }
    }
}
