import Foundation
public import Hummingbird
import JOSE
import Sessions
import Synchronization

/// What every handler of the server needs: the request id, the client's address, the app the
/// path names, and the session the bearer token proved.
public struct AuthRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// A random id for this request, in every log line about it and in a 500's body.
    public let requestID: String
    /// The client's address as the per-address limits count it: the peer's, or behind a trusted
    /// proxy the `trusted_proxy_header`'s right-most untrusted address; an IPv6 address as its /64.
    public var clientAddress: String?
    /// The app of the path's `{app}` or of the bearer token (shared with the logging step).
    public var app: String? {
        get { notes.app.withLock { $0 } }
        nonmutating set { notes.app.withLock { $0 = newValue } }
    }
    let notes = RequestNotes()
    /// On a route that takes an access token if there is one (a login that may link): the
    /// session it proved. Routes that need a session get a ``UserRequestContext`` instead.
    public var session: AuthenticatedSession?

    /// Request bodies are JSON of at most 64 KiB.
    public var maxUploadSize: Int { 64 * 1024 }

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        requestID = RequestID.make()
        clientAddress = source.channel.remoteAddress?.ipAddress
    }
}

/// What a handler of a route that needs a user sees: the request's context, and the session its
/// bearer token proved (never absent) with that session's app.
struct UserRequestContext: Sendable {
    let base: AuthRequestContext
    let session: AuthenticatedSession
    let app: AuthServer.AppRuntime

    var parameters: Parameters { base.parameters }
}

/// A session proved by a bearer token.
public struct AuthenticatedSession: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case access, refresh }
    /// Which token proved it.
    public var kind: Kind
    public var app: String
    public var userID: String
    /// The session id.
    public var sessionID: String
    /// The refresh token when ``kind`` is `.refresh` (needed to refresh or log out); never logged.
    var refreshToken: String?
}

/// What inner steps learn about a request that the outer logging step reports.
final class RequestNotes: Sendable {
    let app = Mutex<String?>(nil)
}

enum RequestID {
    /// 16 hex digits of randomness.
    static func make() -> String {
        var g = SystemRandomNumberGenerator()
        return String(format: "%016llx", g.next() as UInt64)
    }
}
