import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Runs a Hummingbird router on 127.0.0.1, port 0, for the duration of `body`, which gets the port.
/// The server is stopped afterwards whether `body` succeeds or throws.
func withLiveApp<Context: RequestContext, T: Sendable>(
    _ router: Router<Context>, _ body: (Int) async throws -> T
) async throws -> T where Context.Source == ApplicationRequestContextSource {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: "test-app")
    logger.logLevel = .critical  // cancelling the server at the end logs an error per open connection
    let app = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }, logger: logger)
    let task = Task {
        defer { continuation.finish() }  // a server that never listens ends the wait
        try await app.run()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next(), port > 0 else {
        task.cancel()
        _ = await task.result
        throw TestFailure("the test server did not start")
    }
    do {
        let result = try await body(port)
        task.cancel()
        _ = await task.result
        return result
    } catch {
        task.cancel()
        _ = await task.result
        throw error
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A response read whole.
struct Answer: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: String
}

/// One HTTP request with AsyncHTTPClient (the shared client), body read up to 1 MiB.
func call(_ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil) async throws -> Answer {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(string: body)) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(90))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
}
