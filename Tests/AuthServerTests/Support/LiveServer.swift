import AsyncHTTPClient
import AuthServer
import Foundation
import JOSE
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Sessions
import Synchronization
import Testing

/// A `tokentool serve` running in this process on 127.0.0.1:0 with a config in a temporary
/// folder, on a fresh store of the given kind; always shut down and deleted afterwards.
struct LiveServer: Sendable {
    let baseURL: String
    let server: AuthServer
    let directory: String
    /// Every line the server logged, as `SecretCheckingLogHandler` renders it.
    let logs: LogLines

    /// An HTTP answer: status, headers and the body parsed as JSON when it is.
    struct Answer: Sendable {
        let status: Int
        let headers: [(String, String)]
        let body: String
        var json: JSONValue? { try? JSONValue(parsing: body) }
        var object: JSONObject { json?.objectValue ?? JSONObject() }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        /// `error_code` of an error body.
        var errorCode: String? { object["error_code"]?.stringValue }
        subscript(_ name: String) -> String? { object[name]?.stringValue }
    }

    /// Sends one request to this server. `body` is sent as given (JSON text or not).
    func call(
        _ method: NIOHTTP1.HTTPMethod, _ path: String, body: String? = nil, bearer: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> Answer {
        try await Self.send(method, baseURL + path, body: body, bearer: bearer, headers: headers)
    }

    /// Sends one request to an absolute URL (servers in other processes too).
    static func send(
        _ method: NIOHTTP1.HTTPMethod, _ url: String, body: String? = nil, bearer: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer " + bearer) }
        for (n, v) in headers { request.headers.add(name: n, value: v) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(90))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Answer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: String(buffer: bytes))
    }

    static let base = "/api/client/v2.0"

    /// The default app's config: anonymous users, API keys, rotation off.
    static let defaultApps = #"{ "myapp": { "providers": { "anon-user": {}, "api-key": {} } } }"#

    /// Starts a server with `apps` (the config's `apps` JSON) and `extra` top-level members,
    /// runs `body`, then stops it and removes its folder.
    /// With `store`, the server opens that store (a SQLite path or a PostgreSQL URL) instead of a fresh one;
    /// with `wrapStore`, the server uses what it makes of the store it opened.
    /// With `publicURLIsListener`, `public_url` is where the server listens (a free port picked
    /// first), so a client may follow `location` as Realm clients do; else it is `publicURL`, by default `http://auth.test`.
    static func with<T>(
        _ kind: StoreKind, apps: String = defaultApps, extra: String = "", store given: String? = nil,
        files: [String: String] = [:], publicURLIsListener: Bool = false, publicURL fixedURL: String? = nil,
        wrapStore: (@Sendable (any SessionStore) -> any SessionStore)? = nil, _ body: (LiveServer) async throws -> T
    ) async throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-serve-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, content) in files {
            try content.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
            chmod(dir + "/" + name, 0o600)  // secrets are read owner-only
        }
        var store = "\"store\": \"sessions.sqlite\","
        if kind == .postgres {
            var url = given ?? ""
            if given == nil { url = try await ThrowawayPostgres.shared.server().createDatabase() }
            store = "\"store\": \"\(url)\", \"master_key_file\": \"master.key\","
            try MasterKeyFixture.write(dir + "/master.key")
        } else if let given {
            store = "\"store\": \"\(given)\","
        }
        // With `publicURLIsListener`, the port picked may be taken by another test's bind before the
        // server's: its start then fails, and it starts again on another port (a few times).
        var attempt = 0
        while true {
            attempt += 1
            let listenPort = publicURLIsListener ? try freePort() : 0
            let publicURL = fixedURL ?? (publicURLIsListener ? "http://127.0.0.1:\(listenPort)" : "http://auth.test")
            let text = #"{ "public_url": "\#(publicURL)", \#(store) \#(extra) "apps": \#(apps) }"#
            try text.write(toFile: dir + "/server.json", atomically: true, encoding: .utf8)
            let config = try ServerConfig.load(path: dir + "/server.json", environment: [:])
            let logs = LogLines()
            let logger = Logger(label: "test") { _ in SecretCheckingLogHandler(lines: logs) }
            var server = try await AuthServer.open(config: config, logger: logger)
            if let wrapStore { server = server.replacingStore(with: wrapStore(server.store)) }
            let (stream, continuation) = AsyncStream<Int>.makeStream()
            let app = server.makeApplication(host: "127.0.0.1", port: listenPort) { _, port in continuation.yield(port) }
            let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
            // The stream ends when the server stops, so a server that never listens (its bind
            // refused) ends the wait below instead of leaving it waiting for ever.
            let running = Task {
                defer { continuation.finish() }
                try await group.run()
            }
            var port = 0
            for await p in stream { port = p; break }
            guard port != 0 else {
                let failure: (any Error)?
                do { try await running.value; failure = nil } catch { failure = error }
                try? await server.close()
                if publicURLIsListener && attempt < 5 { continue }
                throw HarnessError("the server stopped before it listened on 127.0.0.1:\(listenPort): \(failure.map { "\($0)" } ?? "no error")")
            }
            let live = LiveServer(baseURL: "http://127.0.0.1:\(port)", server: server, directory: dir, logs: logs)
            do {
                let result = try await body(live)
                await group.triggerGracefulShutdown()
                try await running.value
                try await server.close()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                _ = try? await running.value
                try? await server.close()
                throw error
            }
        }
    }
}

extension LiveServer {
    /// A port free on 127.0.0.1 a moment ago: bound to port 0 and let go (the kernel hands the
    /// next port-0 binds other ports, so it stays free for the server about to take it).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw HarnessError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

enum MasterKeyFixture {
    /// A fixed test master key in a 0600 file.
    static func write(_ path: String) throws {
        try String(repeating: "ab", count: 32).write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
    }
}

/// A log handler that fails the test when a log line holds something secret-looking: a JWT,
/// or a word of 40 or more token characters (a refresh token or API key is 43).
struct SecretCheckingLogHandler: LogHandler {
    /// Where the lines are kept, when someone reads them.
    var lines: LogLines?
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = self.metadata.merging(event.metadata ?? [:]) { $1 }
        let text = "\(event.message) " + all.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lines?.append(text)
        if text.contains("eyJ") { Issue.record("a log line holds a JWT: \(text.prefix(200))") }
        let words = text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        if words.contains(where: { $0.utf8.count >= 40 }) { Issue.record("a log line holds a long token-like word: \(text.prefix(200))") }
    }
}

/// The log lines of one server, in order.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

extension LiveServer {
    static func get(_ url: String) async throws -> Answer { try await send(.GET, url) }
    static func post(_ url: String, body: String?, bearer: String? = nil) async throws -> Answer {
        try await send(.POST, url, body: body, bearer: bearer)
    }
}
