import Hummingbird
import Logging

/// `GET /openapi.json`: the OpenAPI 3.1 document of every row of the route table (its own row
/// included), built and encoded once when the routes are added.
struct OpenAPIRoutes: Sendable {
    let bytes: [UInt8]

    init(config: ServerConfig, logger: Logger) {
        do {
            bytes = try OpenAPIDocument.encode(OpenAPIDocument.make(RouteTable.descriptions, config: config))
        } catch {
            logger.error("the OpenAPI document could not be encoded", metadata: ["error": .string("\(error)")])
            bytes = Array("{}".utf8)
        }
    }

    func document(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        JSONResponse.make(status: 200, bytes: bytes)
    }
}
