import Hummingbird
import JOSE
import Sessions

/// `BASE/auth/api_keys[/{id}[/enable|/disable]]` (refresh bearer): the bearer's user's keys, in
/// the bearer's app.
struct APIKeyRoutes: Sendable {
    func create(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let name = try await RequestJSON.read(request, context: context.base).string("name", maxBytes: 128)
        let (record, key) = try await context.app.sessions.createAPIKey(userID: context.session.userID, name: name)
        var body = Self.json(record)
        body["key"] = .string(key)
        return JSONResponse.make(status: 201, .object(body), noStore: true)
    }

    func list(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        JSONResponse.make(status: 200, .array(try await context.app.sessions.apiKeys(of: context.session.userID).map { .object(Self.json($0)) }))
    }

    func get(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        JSONResponse.ok(Self.json(try await context.app.sessions.apiKey(id: try context.parameters.require("id"), of: context.session.userID)))
    }

    func delete(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        try await context.app.sessions.deleteAPIKey(id: try context.parameters.require("id"), of: context.session.userID)
        return JSONResponse.noContent()
    }

    func enable(_ request: Request, _ context: UserRequestContext) async throws -> Response { try await setDisabled(false, context) }

    func disable(_ request: Request, _ context: UserRequestContext) async throws -> Response { try await setDisabled(true, context) }

    private func setDisabled(_ disabled: Bool, _ context: UserRequestContext) async throws -> Response {
        try await context.app.sessions.setAPIKeyDisabled(id: try context.parameters.require("id"), of: context.session.userID, disabled)
        return JSONResponse.noContent()
    }

    /// A key as the list and get calls show it (never the key itself).
    static func json(_ k: APIKeyRecord) -> JSONObject { ["_id": .string(k.id), "name": .string(k.name), "disabled": .bool(k.disabled)] }
}
