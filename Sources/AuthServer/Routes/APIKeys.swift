import Hummingbird
import JOSE
import Sessions

extension AuthServer {
    /// `BASE/auth/api_keys[/{id}[/enable|/disable]]` (refresh bearer).
    func addAPIKeyRoutes(to routes: RouteTable) {
        let path = RouteTable.base + "/auth/api_keys"
        routes.on(.post, path, bearer: .refresh) { request, context in
            let (session, app) = try self.bearer(context)
            let name = try await RequestJSON.read(request, context: context).string("name", maxBytes: 128)
            let (record, key) = try await app.sessions.createAPIKey(userID: session.userID, name: name)
            var body = Self.apiKeyJSON(record)
            body["key"] = .string(key)
            return JSONResponse.make(status: 201, .object(body), noStore: true)
        }
        routes.on(.get, path, bearer: .refresh) { _, context in
            let (session, app) = try self.bearer(context)
            return JSONResponse.make(status: 200, .array(try await app.sessions.apiKeys(of: session.userID).map { .object(Self.apiKeyJSON($0)) }))
        }
        routes.on(.get, path + "/:id", bearer: .refresh) { _, context in
            let (session, app) = try self.bearer(context)
            return JSONResponse.ok(Self.apiKeyJSON(try await app.sessions.apiKey(id: try context.parameters.require("id"), of: session.userID)))
        }
        routes.on(.delete, path + "/:id", bearer: .refresh) { _, context in
            let (session, app) = try self.bearer(context)
            try await app.sessions.deleteAPIKey(id: try context.parameters.require("id"), of: session.userID)
            return JSONResponse.noContent()
        }
        for (action, disabled) in [("enable", false), ("disable", true)] {
            routes.on(.put, path + "/:id/" + action, bearer: .refresh) { _, context in
                let (session, app) = try self.bearer(context)
                try await app.sessions.setAPIKeyDisabled(id: try context.parameters.require("id"), of: session.userID, disabled)
                return JSONResponse.noContent()
            }
        }
    }

    /// A key as the list and get calls show it (never the key itself).
    static func apiKeyJSON(_ k: APIKeyRecord) -> JSONObject { ["_id": .string(k.id), "name": .string(k.name), "disabled": .bool(k.disabled)] }
}
