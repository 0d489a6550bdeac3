import Hummingbird
import JOSE

/// `GET BASE/app/{app}/location`: where the app's clients find the server.
struct LocationRoutes: Sendable {
    let publicURL: String
    let pathApp: @Sendable (AuthRequestContext) throws -> AuthServer.AppRuntime

    func location(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        _ = try pathApp(context)
        let ws = publicURL.hasPrefix("https://") ? "wss://" + publicURL.dropFirst(8) : "ws://" + publicURL.dropFirst(7)
        return JSONResponse.ok(["deployment_model": "GLOBAL", "location": "local", "hostname": .string(publicURL), "ws_hostname": .string(ws)])
    }
}
