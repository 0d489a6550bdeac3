import Foundation
import Hummingbird
import JOSE
import Sessions

/// `GET BASE/auth/profile` and `DELETE BASE/auth/delete` (access bearer).
struct ProfileRoutes: Sendable {
    /// ``AuthServer/afterDeletion(userID:app:providerTokens:)``.
    let afterDeletion: @Sendable (String, AuthServer.AppRuntime, [(provider: String, token: String)]) -> Void

    func profile(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let (session, app) = (context.session, context.app)
        let identities = try await app.sessions.identities(of: session.userID)
        var data = JSONObject()
        let fields = [
            ("name", "name"), ("email", "email"), ("picture_url", "picture"), ("first_name", "given_name"), ("last_name", "family_name"),
        ]
        for identity in identities {
            guard let profile = identity.profileJSON.flatMap({ try? JSONValue(parsing: $0).objectValue }) else { continue }
            for (field, member) in fields where data[field] == nil {
                if let v = profile[member]?.stringValue { data[field] = .string(v) }
            }
        }
        // realm-web's `user.profile.pictureUrl` reads `picture`; realm-core's SDKs read `picture_url`.
        if let picture = data["picture_url"] { data["picture"] = picture }
        let list: [JSONValue] = identities.map {
            .object(["id": .string($0.subject), "provider_type": .string($0.provider), "provider_id": .string($0.provider)])
        }
        return JSONResponse.ok([
            "user_id": .string(session.userID), "domain_id": "", "identities": .array(list), "data": .object(data),
            "type": "normal",
        ])
    }

    func deleteUser(_ request: Request, _ context: UserRequestContext) async throws -> Response {
        let (session, app) = (context.session, context.app)
        let kept = try await app.sessions.providerTokens(of: session.userID)
        try await app.sessions.deleteUser(id: session.userID)
        afterDeletion(session.userID, app, kept)
        return JSONResponse.noContent()
    }
}
