import AsyncHTTPClient
public import Foundation
import JOSE
import NIOCore

/// The production ``HTTPTransport``: AsyncHTTPClient with connect and read timeouts, a
/// deadline for the whole exchange, a response-size cap, and redirects followed only for GET,
/// at most three, and only where ``ProviderURL/redirectTarget(from:location:crossOrigin:)``
/// allows (never from https to http; within the origin for JWKS fetches).
///
/// Call ``shutdown()`` when done, to close the connections at a known point. A transport
/// released without it (a `throw` between creating and shutting it down) shuts its client down
/// in the background instead of stopping the process, as a bare AsyncHTTPClient would.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let google = try GoogleProvider(configuration: .init(clientIDs: ["….apps.googleusercontent.com"]), transport: transport)
/// let identity = try await google.verify(idToken: token)
/// try await transport.shutdown()
/// ```
public final class AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    private let maxRedirects = 3

    /// - Parameter connectTimeout: time allowed to open a connection (TLS included).
    public init(connectTimeout: TimeInterval = 5) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(Int64(connectTimeout * 1000)), read: .seconds(10)))
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Closes the client's connections.
    public func shutdown() async throws {
        try await client.shutdown()
    }

    deinit {
        // Not shut down (or already): start the shutdown without waiting. The callback holds the
        // client until its pool is closed; a second shutdown only reports `alreadyShutdown`.
        client.shutdown(queue: .global()) { _ in }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var current = request
        for _ in 0...maxRedirects {
            let response = try await sendOnce(current)
            guard [301, 302, 303, 307, 308].contains(response.status) else { return response }
            guard current.method == "GET", let location = response.header("location") else {
                throw Self.failure(current, "answered with a redirect (\(response.status)) that is not followed")
            }
            current.url = try ProviderURL.redirectTarget(
                from: current.url, location: location,
                crossOrigin: request.followsCrossOriginRedirects)
        }
        throw Self.failure(request, "redirected more than \(maxRedirects) times")
    }

    private func sendOnce(_ request: HTTPRequest) async throws -> HTTPResponse {
        var r = HTTPClientRequest(url: request.url)
        switch request.method {
        case "GET": r.method = .GET
        case "POST": r.method = .POST
        default: throw TokenError(.invalidConfiguration, "HTTP method \(request.method) is not used with providers")
        }
        for h in request.headers { r.headers.add(name: h.name, value: h.value) }
        if let body = request.body { r.body = .bytes(ByteBuffer(bytes: body)) }
        let prepared = r
        let maxBytes = request.maxResponseBytes
        let deadline = NIODeadline.now() + .milliseconds(Int64(request.timeout * 1000))
        do {
            // The deadline covers the body too: a provider that stalls mid-body is cut off.
            return try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
                group.addTask { [client] in
                    let response = try await client.execute(prepared, deadline: deadline)
                    var buffer = try await response.body.collect(upTo: maxBytes)
                    let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
                    return HTTPResponse(
                        status: Int(response.status.code),
                        headers: response.headers.map { (name: $0.name, value: $0.value) }, body: bytes)
                }
                let timeout = request.timeout
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw Self.failure(request, "did not answer within \(Self.seconds(request.timeout))")
                }
                return response
            }
        } catch let e as TokenError {
            throw e
        } catch is NIOTooManyBytesError {
            throw Self.failure(request, "sent a response larger than \(request.maxResponseBytes) bytes")
        } catch let e as HTTPClientError where e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout {
            throw Self.failure(request, "did not answer within \(Self.seconds(request.timeout))")
        } catch {
            throw Self.failure(request, "could not be reached", cause: String(describing: error).prefix(200))
        }
    }

    /// `provider_unavailable`: "<the other end> <what>", the other end named by the request's
    /// ``HTTPRequest/name`` or else its URL; the URL and `cause` always in `detail`, and in the
    /// message only for an unnamed request.
    static func failure(_ request: HTTPRequest, _ what: String, cause: Substring? = nil) -> TokenError {
        let url = ProviderURL.shown(request.url)
        let said = cause.map { "\(what): \($0)" } ?? what
        var error = TokenError(.providerUnavailable, request.name.map { "\($0) \(what)" } ?? "\(url) \(said)")
        error.detail = "\(request.method) \(url) \(said)"
        return error
    }

    static func seconds(_ t: TimeInterval) -> String {
        t == t.rounded() ? "\(Int(t))s" : String(format: "%.1fs", t)
    }
}
