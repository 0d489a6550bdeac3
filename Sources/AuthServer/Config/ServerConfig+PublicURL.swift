import Foundation

extension ServerConfig {
    /// The warning `tokentool serve` prints on standard error at start when `public_url` names a
    /// loopback address (`localhost`, `127.0.0.0/8`, `::1`) on another port than the one the server
    /// listens on: Realm clients follow `location` to `public_url` for every call after it, so they
    /// would reach another port, or nothing. `nil` when `public_url` is not loopback or the ports agree.
    /// - Parameter listeningPort: the port the server listens on (the real one, after port 0 was bound).
    public func publicURLWarning(listeningPort: Int) -> String? {
        guard let url = URLComponents(string: publicURL), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
            return nil
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let loopback = bare == "localhost" || bare == "::1" || Self.isIPv4Loopback(bare)
        guard loopback, let port = url.port ?? ["http": 80, "https": 443][scheme], port != listeningPort else { return nil }
        return "warning: public_url \(publicURL) names port \(port) on this machine, but the server listens on port \(listeningPort): "
            + "Realm clients are sent there by location (set public_url to the address clients reach this server at)"
    }

    /// `127.x.y.z` written as four decimal numbers.
    private static func isIPv4Loopback(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { p in UInt8(p) != nil }
    }
}
