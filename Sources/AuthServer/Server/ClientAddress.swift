import NIOCore

/// The key every per-address bound counts under (the `limits` rates, `connections_per_address`):
/// an IPv4 address as it is, an IPv6 address as its /64 (one subscriber's prefix: a client
/// holding a /64 could otherwise take a new address for every request). IPv4-mapped IPv6
/// addresses count as their IPv4 address.
enum ClientAddress {
    static func key(_ address: String) -> String {
        guard let bytes = IPNetwork.bytes(of: address) else { return address }
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }

    /// The client of a request from `peer` carrying `forwarded` (the values of the
    /// `trusted_proxy_header`, in order): the peer itself unless it is one of `proxies`; else the
    /// right-most element of the header that is not a trusted proxy (each element must be an IP
    /// address: the client may have written anything to the left of what our proxies appended).
    /// An element that is not an address ends the walk at the last trusted hop.
    static func resolve(peer: String?, forwarded: [String], proxies: [IPNetwork]) -> String? {
        guard let peer, let peerBytes = IPNetwork.bytes(of: peer), proxies.contains(where: { $0.contains(peerBytes) }) else { return peer }
        var client = peer
        let elements = forwarded.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for element in elements.reversed() {
            guard let bytes = IPNetwork.bytes(of: element) else { break }
            client = element
            if !proxies.contains(where: { $0.contains(bytes) }) { break }
        }
        return client
    }
}

/// An IP network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`; a bare address is one host).
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address: 4 bytes, or 16 for IPv6.
    public let address: [UInt8]
    public let prefixLength: Int

    /// - Returns: `nil` for anything but an address or `address/prefix` with a prefix in range.
    public init?(cidr text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = Self.bytes(of: String(parts[0])) else { return nil }
        let length: Int
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy(\.isASCII), let n = Int(parts[1]), (0...bytes.count * 8).contains(n) else { return nil }
            length = n
        } else {
            length = bytes.count * 8
        }
        address = bytes
        prefixLength = length
    }

    /// Whether `bytes` (an address of the same family) lies in the network.
    func contains(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == address.count else { return false }
        var left = prefixLength
        for (a, b) in zip(address, bytes) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xff : ~(0xff >> UInt8(left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
    }

    public var description: String { "\(address.count == 4 ? address.map(String.init).joined(separator: ".") : "IPv6")/\(prefixLength)" }

    /// The bytes of an IPv4 or IPv6 address in text (IPv6 may be in brackets); an IPv4-mapped
    /// IPv6 address is its IPv4 address. `nil` for anything else.
    static func bytes(of text: String) -> [UInt8]? {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        guard !text.isEmpty, text.utf8.count <= 45, let parsed = try? SocketAddress(ipAddress: String(text), port: 0) else { return nil }
        switch parsed {
        case .v4(let v4): return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff { return Array(bytes[12...]) }
            return bytes
        default: return nil
        }
    }
}
