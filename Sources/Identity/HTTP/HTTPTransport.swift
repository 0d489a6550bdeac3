public import Foundation
import JOSE

/// One HTTP request to a provider.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// The whole exchange (connect, send, receive the full body) must finish within this time.
    public var timeout: TimeInterval
    /// Responses longer than this are refused (`provider_unavailable`).
    public var maxResponseBytes: Int
    /// `false`: a redirect is followed only within the request's origin (scheme, host, port),
    /// as JWKS fetches require. Redirects never go from https to http either way.
    public var followsCrossOriginRedirects: Bool = true
    /// How the transport's error messages name the other end: `nil` names it by its URL (scheme,
    /// host and path). Set it when the address is not the caller's client's business (the custom
    /// function's, often internal): a message then holds neither the URL nor the underlying
    /// error's text (which may name the host); both go to the error's `detail`, for the log.
    public var name: String?

    public init(
        method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        timeout: TimeInterval = 5, maxResponseBytes: Int = 512 * 1024
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header (names compare case-insensitively).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// How the Identity module talks to providers. Inject one to run against a stand-in server,
/// or to add logging, proxies or retries.
///
/// Implementations must enforce ``HTTPRequest/timeout`` and ``HTTPRequest/maxResponseBytes``
/// and throw `provider_unavailable` when the provider cannot be reached or the response is
/// too large. Any HTTP status is returned, not thrown. When ``HTTPRequest/name`` is set, the
/// error's message must name the other end by it, never by its URL (put that in `detail`).
public protocol HTTPTransport: Sendable {
    /// - Throws: `provider_unavailable`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Provider endpoint URLs: https everywhere, plain http only for loopback hosts (tests and
/// the stand-in server).
public enum ProviderURL {
    /// Checks `url` and returns it.
    /// - Throws: `invalid_configuration` for anything but an absolute https URL (or http on loopback).
    @discardableResult
    public static func validate(_ url: String, what: String) throws -> String {
        guard let c = URLComponents(string: url), let scheme = c.scheme?.lowercased(), let host = c.host, !host.isEmpty else {
            throw TokenError(.invalidConfiguration, "\(what) \"\(url.prefix(200))\" is not an absolute URL")
        }
        guard c.user == nil, c.password == nil else {
            throw TokenError(.invalidConfiguration, "\(what) must not carry credentials in the URL")
        }
        switch scheme {
        case "https": return url
        case "http" where isLoopback(host): return url
        case "http": throw TokenError(.invalidConfiguration, "\(what) must use https (plain http is allowed only for loopback hosts); found \(host)")
        default: throw TokenError(.invalidConfiguration, "\(what) has scheme \(scheme); expected https")
        }
    }

    /// Where a redirect from `current` to `location` may go, or why it may not.
    ///
    /// The target must be a URL ``validate(_:what:)`` accepts, never plain http after https (not
    /// even to a loopback host: a hostile provider must not reach the server's internal
    /// services), and, unless `crossOrigin`, on the same scheme, host and port.
    /// - Throws: `provider_unavailable`.
    public static func redirectTarget(from current: String, location: String, crossOrigin: Bool) throws -> String {
        guard let base = URL(string: current), let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let from = URLComponents(url: base, resolvingAgainstBaseURL: false),
            let to = URLComponents(url: target, resolvingAgainstBaseURL: false)
        else {
            throw TokenError(.providerUnavailable, "\(shown(current)) redirected to an unreadable location")
        }
        let refused = "\(shown(current)) redirected to \(shown(target.absoluteString))"
        do { try validate(target.absoluteString, what: "redirect target") } catch {
            throw TokenError(.providerUnavailable, "\(refused), which is not https")
        }
        if from.scheme?.lowercased() == "https" && to.scheme?.lowercased() != "https" {
            throw TokenError(.providerUnavailable, "\(refused): a redirect never leaves https")
        }
        func origin(_ c: URLComponents) -> String {
            let scheme = c.scheme?.lowercased() ?? ""
            return "\(scheme)://\(c.host?.lowercased() ?? ""):\(c.port ?? (scheme == "https" ? 443 : 80))"
        }
        if !crossOrigin && origin(from) != origin(to) {
            throw TokenError(.providerUnavailable, "\(refused): a JWKS redirect must stay on its origin")
        }
        return target.absoluteString
    }

    /// A URL for messages: scheme, host and path, never the query (it may hold tokens or secrets).
    /// (Here rather than in ``AsyncHTTPClientTransport`` so that everything but that one file
    /// builds without AsyncHTTPClient, as the `provider` fuzz target does.)
    static func shown(_ url: String) -> String {
        guard var c = URLComponents(string: url) else { return "the provider" }
        c.query = nil
        c.fragment = nil
        return c.string.map { String($0.prefix(200)) } ?? "the provider"
    }

    /// `true` for 127.0.0.0/8, ::1 and localhost.
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if h == "localhost" || h == "::1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
