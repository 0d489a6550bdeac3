import OIDCProvider

extension AppConfig {
    /// At most this many `allowed_request_origins` per app.
    static let maxAllowedOrigins = 100

    /// Reads `allowed_request_origins`: the origins whose pages may call this app's routes from a
    /// browser (CORS), each exactly as a browser serializes it (``originProblem(_:)``).
    static func readAllowedRequestOrigins(_ o: inout ConfigObject) throws -> [String] {
        let name = "allowed_request_origins"
        guard let list = try o.strings(name) else { return [] }
        guard list.count <= maxAllowedOrigins else { throw o.error(name, "at most \(maxAllowedOrigins) origins") }
        var seen: Set<String> = []
        for (i, origin) in list.enumerated() {
            if let problem = originProblem(origin) { throw o.error("\(name)[\(i)]", problem) }
            guard seen.insert(origin).inserted else { throw o.error("\(name)[\(i)]", "listed twice") }
        }
        return list
    }

    /// Why `text` is not an origin as a browser's `Origin` header spells it, or `nil` when it is:
    /// `https://host[:port]`, or `http://` for `localhost`, `127.0.0.1` and `[::1]`; lower-case,
    /// no default port, no path (not even `/`), no wildcard, never `null`.
    public static func originProblem(_ text: String) -> String? {
        if text == "null" { return "null is the origin of sandboxed and file pages: it can never be allowed" }
        if text.contains("*") { return "wildcards are not allowed: list each origin" }
        guard let parts = OIDCRedirectURI.Parts(text), parts.userinfo == nil, parts.rest.isEmpty else {
            return "must be an origin like https://app.example.com (scheme, host and port only, no path)"
        }
        guard text == text.lowercased() else { return "must be lower-case, as browsers send it" }
        switch parts.scheme {
        case "https": if parts.port == "443" { return "the default port is never part of an origin: leave :443 out" }
        case "http" where parts.isLoopback: if parts.port == "80" { return "the default port is never part of an origin: leave :80 out" }
        case "http": return "http is allowed only for localhost, 127.0.0.1 and [::1]; use https"
        default: return "must be https, or http on localhost, 127.0.0.1 or [::1]"
        }
        if let port = parts.port, port.hasPrefix("0") || Int(port).map({ !(1...65535).contains($0) }) ?? true {
            return "the port must be 1 to 65535, without leading zeros"
        }
        let hostIsPlain =
            parts.host.hasPrefix("[")
            || parts.host.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 46 }
        return hostIsPlain ? nil : "the host must be letters, digits, - and . (an international name in its xn-- form)"
    }
}
