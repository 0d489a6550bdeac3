import Hummingbird
import JOSE
import Sessions

/// `GET /healthz` (200 once the store answers) and `GET /metrics` (Prometheus text) for the
/// bearer of `metrics_token_file`'s token; 404 for anyone else, as for a path that does not exist.
struct HealthRoutes: Sendable {
    let store: any SessionStore
    let metrics: ServerMetrics
    let token: [UInt8]?

    func health(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        _ = try await store.schemaVersion()
        return JSONResponse.ok(["status": "ok"])
    }

    func metrics(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        guard let token, let header = request.headers[.authorization], header.utf8.count <= 1024, header.lowercased().hasPrefix("bearer "),
            ConstantTime.equals(Array(header.utf8.dropFirst(7)), token)
        else { throw TokenError(.notFound, "no route has this path") }
        return metrics.response()
    }
}

extension AuthServer {
    /// `metrics_listen`'s listener: `GET /metrics` alone, to whoever reaches it; it logs
    /// `metrics listening` with its address once it accepts connections.
    func metricsApplication(host: String, port: Int) -> some ApplicationProtocol {
        let router = Router()
        let metrics = self.metrics, logger = self.logger
        router.get("/metrics") { _, _ in metrics.response() }
        return Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                logger.info("metrics listening", metadata: ["address": .string("\(host):\(channel.localAddress?.port ?? port)")])
            }, logger: logger)
    }
}

extension ServerMetrics {
    /// `/metrics`' answer: the Prometheus text exposition.
    func response() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text())))
    }
}
