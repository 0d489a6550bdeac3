import Hummingbird
import JOSE

extension AuthServer {
    /// `GET BASE/app/{app}/location`: where the app's clients find the server.
    func addLocationRoutes(to routes: RouteTable) {
        let publicURL = config.publicURL
        let ws = publicURL.hasPrefix("https://") ? "wss://" + publicURL.dropFirst(8) : "ws://" + publicURL.dropFirst(7)
        routes.on(.get, RouteTable.base + "/app/:app/location") { _, context in
            _ = try self.pathApp(context)
            return JSONResponse.ok(["deployment_model": "GLOBAL", "location": "local", "hostname": .string(publicURL), "ws_hostname": .string(ws)])
        }
    }
}
