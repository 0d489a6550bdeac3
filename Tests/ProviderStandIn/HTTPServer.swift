import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request as the stand-in saw it.
public struct StandInRequest: Sendable {
    public var method: String
    /// Path without the query.
    public var path: String
    public var query: [String: String]
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as application/x-www-form-urlencoded fields.
    public var form: [String: String] { StandInRequest.parseQuery(String(decoding: body, as: UTF8.self)) }

    static func parseQuery(_ q: String) -> [String: String] {
        var out: [String: String] = [:]
        for pair in q.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                (String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? String(s)
            }
            out[decode(kv[0])] = kv.count > 1 ? decode(kv[1]) : ""
        }
        return out
    }
}

/// What the stand-in sends back; `nil` from a route means "stall": never answer.
public struct StandInResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> StandInResponse {
        StandInResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers, body: Array(text.utf8))
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 (SwiftNIO): whole requests in, whole responses out.
final class HTTPServer: Sendable {
    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    let port: Int

    init(port: Int, handler: @escaping @Sendable (StandInRequest) -> StandInResponse?) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(RequestHandler(handler: handler))
                }
            }
        do {
            channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        self.group = group
        self.port = channel.localAddress?.port ?? port
    }

    func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

private final class RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let handler: @Sendable (StandInRequest) -> StandInResponse?
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(handler: @escaping @Sendable (StandInRequest) -> StandInResponse?) { self.handler = handler }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
        case .body(var buffer):
            if body.count < 1 << 20 { body += buffer.readBytes(length: buffer.readableBytes) ?? [] }
        case .end:
            guard let head else { return }
            self.head = nil
            let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let request = StandInRequest(
                method: head.method.rawValue, path: String(parts[0]),
                query: parts.count > 1 ? StandInRequest.parseQuery(String(parts[1])) : [:],
                headers: head.headers.map { (name: $0.name, value: $0.value) }, body: body)
            guard let response = handler(request) else { return }  // stall: the client's timeout ends it
            var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
            let keepAlive = head.isKeepAlive
            headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
            let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            if !response.body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
            }
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !keepAlive {
                let channel = context.channel
                done.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
