import Hummingbird
import JOSE

extension AuthServer {
    /// `GET /healthz` (200 once the store answers) and `GET /metrics` (Prometheus text).
    func addHealthRoutes(to routes: RouteTable) {
        let store = self.store
        routes.on(.get, "/healthz") { _, _ in
            _ = try await store.schemaVersion()
            return JSONResponse.ok(["status": "ok"])
        }
        let metrics = self.metrics
        routes.on(.get, "/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
        }
    }
}
