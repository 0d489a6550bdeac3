import AsyncHTTPClient
import Foundation
import JOSE
import NIOCore
import NIOHTTP1
import ProviderStandIn
import Synchronization
import Testing

/// A browser through web sign-in, one request at a time (redirects are looked at, not followed):
/// realm-web's start URL, the provider's page (a stand-in that answers at once), the callback.
///
/// It keeps cookies as a browser does, per `browser` (a name: `"default"`, or another for a second
/// browser with a cookie jar of its own) and per origin (each test's server has its own port).
enum WebSignInBrowser {
    /// An HTTP client that never follows a redirect.
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
    /// Cookies by browser and origin, then by name.
    static let jars = Mutex<[String: [String: String]]>([:])

    static func get(_ url: String, browser: String = "default") async throws -> LiveServer.Answer {
        try await send(.GET, url, browser: browser)
    }

    /// A form post, as a browser sends Apple's `form_post` page: cross-site, so it carries only
    /// `cookies` (what a browser sends on a cross-site POST: `SameSite=None` ones), none of the jar's.
    static func postForm(_ url: String, _ fields: [(String, String)], cookies: [String: String] = [:]) async throws -> LiveServer.Answer {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved)!)" }.joined(separator: "&")
        return try await send(.POST, url, body: body, contentType: "application/x-www-form-urlencoded", browser: nil, cookies: cookies)
    }

    /// The cookie `name` that `browser` holds for `url`'s origin.
    static func cookie(_ name: String, for url: String, browser: String = "default") -> String? {
        jars.withLock { $0[browser + " " + origin(url)]?[name] }
    }

    static func origin(_ url: String) -> String {
        guard let c = URLComponents(string: url) else { return url }
        return "\(c.scheme ?? "")://\(c.host ?? ""):\(c.port ?? 0)"
    }

    /// A form post from the server's own page in `browser` (its jar's cookies), with `headers`
    /// (`Origin`, `Sec-Fetch-Site`) as that browser sends them.
    static func postPage(_ url: String, _ fields: [(String, String)], browser: String = "default", headers: [(String, String)] = [])
        async throws -> LiveServer.Answer
    {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved)!)" }.joined(separator: "&")
        return try await send(.POST, url, body: body, contentType: "application/x-www-form-urlencoded", browser: browser, headers: headers)
    }

    /// `browser` `nil`: no jar (only `cookies` are sent, nothing is kept).
    static func send(
        _ method: HTTPMethod, _ url: String, body: String? = nil, contentType: String? = nil, browser: String? = "default",
        cookies: [String: String] = [:], headers: [(String, String)] = []
    ) async throws -> LiveServer.Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        let key = browser.map { $0 + " " + origin(url) }
        let held = (key.flatMap { k in jars.withLock { $0[k] } } ?? [:]).merging(cookies) { $1 }
        if !held.isEmpty { request.headers.add(name: "Cookie", value: held.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        let response = try await client.execute(request, timeout: .seconds(90))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        if let key {
            for value in response.headers["Set-Cookie"] {
                let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2 else { continue }
                jars.withLock { $0[key, default: [:]][String(pair[0])] = pair[1].isEmpty ? nil : String(pair[1]) }
            }
        }
        return LiveServer.Answer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: String(buffer: bytes))
    }

    /// realm-web's start URL for `provider` of `app`.
    static func start(_ s: LiveServer, app: String = "myapp", provider: String, redirect: String, state: String, device: String? = nil) -> String {
        var q = [("redirect", redirect), ("state", state)]
        if let device { q.append(("device", device)) }
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let query = q.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved)!)" }.joined(separator: "&")
        return s.baseURL + LiveServer.base + "/app/\(app)/auth/providers/\(provider)/login?" + query
    }

    /// The query (or fragment) of `url` as realm-web's `decodeQueryString` reads it.
    static func parameters(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            out[String(kv[0]).removingPercentEncoding ?? ""] = kv.count > 1 ? (String(kv[1]).removingPercentEncoding ?? "") : ""
        }
        return out
    }

    static func query(_ url: String) -> [String: String] {
        parameters(url.split(separator: "?", maxSplits: 1).dropFirst().first?.split(separator: "#").first ?? "")
    }

    /// The fragment of a `302`'s `Location` that goes to `redirect`, as realm-web reads it.
    static func fragment(_ answer: LiveServer.Answer, redirect: String) throws -> [String: String] {
        #expect(answer.status == 302, "\(answer.status) \(answer.body.prefix(300))")
        let location = try #require(answer.header("Location"))
        #expect(location.hasPrefix(redirect + "#"), "\(location)")
        return parameters(location.split(separator: "#", maxSplits: 1).dropFirst().first ?? "")
    }

    /// The `#_baas_error` of a refusal that went back to `redirect` with realm-web's `state`.
    static func refusal(_ answer: LiveServer.Answer, redirect: String, state: String) throws -> String {
        let f = try fragment(answer, redirect: redirect)
        #expect(f["_baas_ua"] == nil && f["_baas_state"] == state)
        return f["_baas_error"] ?? ""
    }

    /// The hidden fields of an HTML page's form, and where it posts.
    static func form(_ html: String) throws -> (action: String, fields: [(String, String)]) {
        func unescape(_ s: String) -> String {
            s.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&amp;", with: "&")
        }
        let action = try #require(html.firstMatch(of: /action="([^"]*)"/)?.1)
        let fields = html.matches(of: /<input type="hidden" name="([^"]*)" value="([^"]*)">/).map { (unescape(String($0.1)), unescape(String($0.2))) }
        return (unescape(String(action)), fields)
    }

    /// realm-web's `device` parameter: `Base64.encodeURI(JSON.stringify(device))`.
    static func device(_ json: String) -> String {
        var b = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while b.hasSuffix("=") { b.removeLast() }
        return b
    }
}
