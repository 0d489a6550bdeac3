import AsyncHTTPClient
import Foundation
import JOSE
import NIOCore
import NIOHTTP1
import Sessions

/// What the OAuth tests share: a config with two apps (one rotating) and a `clients` entry, and
/// form posts as OAuth clients send them.
enum OAuthFixture {
    static let apps = #"""
        { "myapp": { "providers": { "anon-user": {} } },
          "rotating": { "refresh_rotation": true, "reuse_grace": "2s", "providers": { "anon-user": {} } } }
        """#
    static let clientSecret = "resource-api-secret-0123456789abcdef"
    static let extra = #""clients": { "resource-api": { "secret_file": "api.secret" } },"#
    static let files = ["api.secret": clientSecret + "\n"]

    /// `Authorization: Basic` for `id` and `secret` (RFC 6749 §2.3.1: each form-urlencoded first).
    static func basic(_ id: String = "resource-api", _ secret: String = clientSecret) -> (String, String) {
        ("Authorization", "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString())
    }

    /// A signed-in user of `app`: its tokens, issued by the server's own session manager.
    static func signIn(_ s: LiveServer, app: String = "myapp", subject: String = UUID().uuidString) async throws -> SessionManager.SignIn {
        guard let runtime = s.server.apps[app] else { throw HarnessError("no app \(app)") }
        return try await runtime.sessions.signIn(with: .init(provider: "anon-user", subject: subject), clientID: app)
    }
}

extension LiveServer {
    /// POSTs `fields` form-encoded (RFC 6749 Appendix B) to `path`.
    func form(
        _ path: String, _ fields: [(String, String)], headers: [(String, String)] = [],
        contentType: String = "application/x-www-form-urlencoded"
    ) async throws -> Answer {
        func enc(_ s: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._*")
            return (s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s)
        }
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: fields.map { "\(enc($0.0))=\(enc($0.1))" }.joined(separator: "&")))
        request.headers.add(name: "Content-Type", value: contentType)
        for (n, v) in headers { request.headers.add(name: n, value: v) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(90))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: String(buffer: bytes))
    }
}
