import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OIDCProvider

/// What the OpenID Connect tests share: a server with OpenID Connect clients, and a browser of
/// sorts that keeps cookies and follows no redirect (each answer is checked on its own).
enum OIDCFixture {
    static let password = "a good password 1"
    static let secret = "portal-secret-0123456789abcdef0123"
    /// `myapp` (confirmed at once) and `strict` (confirmation needed).
    static let apps = #"""
        { "myapp": { "providers": { "local-userpass": { "auto_confirm": true } } },
          "strict": { "providers": { "local-userpass": {} } } }
        """#
    static let hostileName = #"<script>alert(1)</script> & "Co""#
    /// `portal` (first party), `third` (a hostile name, consent needed), `spa` (public), `late` (the strict app's).
    static func extra(limits: String = "") -> String {
        #"""
        \#(limits)
        "clients": {
          "portal": { "app": "myapp", "name": "Portal", "secret_file": "portal.secret", "first_party": true,
                      "redirect_uris": ["https://portal.example.com/cb"] },
          "third": { "app": "myapp", "name": "<script>alert(1)</script> & \"Co\"", "secret_file": "portal.secret",
                     "redirect_uris": ["https://third.example/cb"], "scopes": ["openid", "email"] },
          "spa": { "app": "myapp", "redirect_uris": ["http://127.0.0.1/cb"], "first_party": true },
          "late": { "app": "strict", "secret_file": "portal.secret", "first_party": true, "redirect_uris": ["https://late.example/cb"] } },
        """#
    }
    static let files = ["portal.secret": secret + "\n"]

    static func with<T>(_ kind: StoreKind, limits: String = "", publicURL: String? = nil, _ body: (LiveServer) async throws -> T) async throws -> T {
        try await LiveServer.with(kind, apps: apps, extra: extra(limits: limits), files: files, publicURL: publicURL, body)
    }

    /// Registers `email` in `app`; returns the user id once it signed in through the API (unless the app needs a confirmation).
    @discardableResult
    static func register(_ s: LiveServer, _ email: String, app: String = "myapp") async throws -> String? {
        let prefix = LiveServer.base + "/app/\(app)/auth/providers/local-userpass"
        _ = try await s.call(.POST, prefix + "/register", body: AccountRoutesTests.json(["email": email, "password": password]))
        let login = try await s.call(.POST, prefix + "/login", body: AccountRoutesTests.json(["username": email, "password": password]))
        return login["user_id"]
    }

    /// `?name=value&…`, each value percent-encoded.
    static func query(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return "?" + pairs.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
    }

    /// The query parameters of a URL.
    static func parameters(_ url: String?) -> [String: String] {
        guard let url, let items = URLComponents(string: url)?.queryItems else { return [:] }
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The hidden CSRF field's value in a page.
    static func csrf(_ html: String) -> String? {
        guard let r = html.range(of: #"name="csrf" value=""#) else { return nil }
        return String(html[r.upperBound...].prefix { $0 != "\"" })
    }
}

/// A cookie-keeping HTTP client that follows no redirect; shut down by ``with(_:)``.
final class OIDCBrowser: @unchecked Sendable {
    let client: HTTPClient
    let base: String
    /// Cookies by name, as the server set them.
    var cookies: [String: String] = [:]
    /// Every `Set-Cookie` value received but the flow-binding cookies (``FlowBinding``), which
    /// every flow's start sets: what is left says whether anybody was signed in.
    var setCookies: [String] = []

    private init(base: String) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.base = base
    }

    static func with<T>(_ s: LiveServer, _ body: (OIDCBrowser) async throws -> T) async throws -> T {
        let browser = OIDCBrowser(base: s.baseURL)
        do {
            let result = try await body(browser)
            try await browser.client.shutdown()
            return result
        } catch {
            try? await browser.client.shutdown()
            throw error
        }
    }

    /// `path` below the server, or the path and query of an absolute URL (a `Location` naming `public_url`).
    func url(_ pathOrURL: String) -> String {
        guard pathOrURL.hasPrefix("http"), let c = URLComponents(string: pathOrURL) else { return base + pathOrURL }
        return base + c.percentEncodedPath + (c.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    func get(_ pathOrURL: String, headers: [(String, String)] = []) async throws -> LiveServer.Answer {
        try await send(.GET, pathOrURL, body: nil, headers: headers)
    }

    func post(_ pathOrURL: String, _ fields: [(String, String)], headers: [(String, String)] = []) async throws -> LiveServer.Answer {
        let body = String(OIDCFixture.query(fields).dropFirst())
        return try await send(.POST, pathOrURL, body: body, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")])
    }

    private func send(_ method: HTTPMethod, _ pathOrURL: String, body: String?, headers: [(String, String)]) async throws -> LiveServer.Answer {
        var request = HTTPClientRequest(url: url(pathOrURL))
        request.method = method
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        for (n, v) in headers { request.headers.add(name: n, value: v) }
        if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        let response = try await client.execute(request, timeout: .seconds(90))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        for value in response.headers["Set-Cookie"] {
            if !value.contains("tokentool-flow=") && !value.contains("tokentool-wsi=") { setCookies.append(value) }
            let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2 { cookies[String(pair[0])] = pair[1].isEmpty ? nil : String(pair[1]) }
        }
        return LiveServer.Answer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: String(buffer: bytes))
    }
}
