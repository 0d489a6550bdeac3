import JOSE

/// A `HOST:PORT` to listen on (`[::1]:PORT` for IPv6; port 0 = any free port): `--listen`,
/// `TOKENTOOL_LISTEN` and the config's `metrics_listen`.
public enum ListenAddress {
    /// - Throws: `invalid_input` for anything but `HOST:PORT` with a port 0…65535.
    public static func parse(_ text: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":") else { throw TokenError(.invalidInput, "must be HOST:PORT, got \"\(text.prefix(64))\"") }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw TokenError(.invalidInput, "must be HOST:PORT with a port 0…65535, got \"\(text.prefix(64))\"")
        }
        return (host, port)
    }
}
