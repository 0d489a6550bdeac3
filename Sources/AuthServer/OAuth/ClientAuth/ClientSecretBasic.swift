import Foundation
import Hummingbird

/// `client_secret_basic` (RFC 6749 §2.3.1): `Authorization: Basic base64(urlencode(id) ":" urlencode(secret))`.
struct ClientSecretBasic: ClientAuthMethod {
    static let name = "client_secret_basic"
    static let provesSecret = true

    static func credentials(_ request: Request, form: OAuthForm) throws -> ClientCredentials? {
        guard let header = request.headers[.authorization] else { return nil }
        guard header.utf8.count <= 4096, header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: header.dropFirst(6).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":"),
            let id = text[..<colon].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
            let secret = text[text.index(after: colon)...].replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        else { throw ClientAuthentication.refused }
        return ClientCredentials(id: id, secret: secret)
    }
}
