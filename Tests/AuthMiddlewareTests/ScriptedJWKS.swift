import Identity
import JOSE
import Synchronization

/// A sign-in server's JWKS as a scripted transport: a status and a key set, with the
/// `Cache-Control: public, max-age=300` the server sends.
final class ScriptedJWKS: HTTPTransport, Sendable {
    let answer = Mutex<(status: Int, keys: [JWK])>((200, []))

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (status, keys) = answer.withLock { $0 }
        return HTTPResponse(
            status: status, headers: [("Cache-Control", "public, max-age=300")], body: Array(try JWKSet(keys: keys).jsonString().utf8))
    }
}
