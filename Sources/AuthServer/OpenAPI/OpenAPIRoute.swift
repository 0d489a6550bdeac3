import Hummingbird
import Synchronization

extension AuthServer {
    /// `GET /openapi.json`: the OpenAPI 3.1 document of every route of `routes`, itself included,
    /// built and encoded once here. Added after every other route (the table's rows are what it
    /// describes).
    func addOpenAPIRoute(to routes: RouteTable) {
        let served = ServedDocument()
        routes.on(.get, "/openapi.json") { _, _ in JSONResponse.make(status: 200, bytes: served.bytes) }
        do {
            served.bytes = try OpenAPIDocument.encode(OpenAPIDocument.make(routes.described.all, config: config))
        } catch {
            logger.error("the OpenAPI document could not be encoded", metadata: ["error": .string("\(error)")])
        }
    }
}

/// The encoded document, set once when the routes are added.
final class ServedDocument: Sendable {
    private let stored = Mutex<[UInt8]>(Array("{}".utf8))

    var bytes: [UInt8] {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
