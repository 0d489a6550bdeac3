import Foundation
import JOSE

extension ProviderStandIn {
    // Graph's `/debug_token` and `/me`, with or without a `/vNN.N` prefix.

    func graphError(_ message: String, type: String = "OAuthException", code: Int) -> StandInResponse {
        .json(
            JSONValue.object([
                "error": .object(["message": .string(message), "type": .string(type), "code": .int(Int64(code)), "fbtrace_id": "StandInTrace"])
            ]).jsonString,
            status: 400)
    }

    func debugToken(_ request: StandInRequest) -> StandInResponse {
        guard request.query["access_token"] == "\(settings.facebookAppID)|\(settings.facebookAppSecret)" else {
            return graphError("Invalid OAuth access token signature.", code: 190)
        }
        guard let input = request.query["input_token"] else { return graphError("(#100) The parameter input_token is required", code: 100) }
        guard let user = lock.withLock({ facebookUsers[input] }) else {
            return .json(
                #"{"data":{"error":{"code":190,"message":"Invalid OAuth access token - Cannot parse access token"},"is_valid":false,"scopes":[]}}"#)
        }
        var data: JSONObject = [
            "app_id": .string(user.appID), "type": "USER", "application": "StandIn",
            "data_access_expires_at": .int(now + 90 * 86400), "expires_at": .int(user.expiresAt),
            "is_valid": .bool(user.isValid), "scopes": ["email", "public_profile"], "user_id": .string(user.userID),
        ]
        if !user.isValid {
            data["error"] = .object(["code": 190, "message": "Error validating access token: The session has been invalidated.", "subcode": 460])
        }
        return .json(JSONValue.object(["data": .object(data)]).jsonString)
    }

    func me(_ request: StandInRequest) -> StandInResponse {
        guard let token = request.query["access_token"], let user = lock.withLock({ facebookUsers[token] }), user.isValid else {
            return graphError("Invalid OAuth access token - Cannot parse access token", code: 190)
        }
        let proof = (try? HMAC.sha256(key: Array(settings.facebookAppSecret.utf8), data: Array(token.utf8)))?.map { String(format: "%02x", $0) }
            .joined()
        guard let given = request.query["appsecret_proof"], given == proof else {
            return graphError("Invalid appsecret_proof provided in the API argument", type: "GraphMethodException", code: 100)
        }
        let fields = (request.query["fields"] ?? "id,name").split(separator: ",").map(String.init)
        var o: JSONObject = [:]
        for f in fields {
            switch f {
            case "id": o["id"] = .string(user.userID)
            case "name": if let n = user.name { o["name"] = .string(n) }
            case "email": if let e = user.email { o["email"] = .string(e) }
            case "picture":
                if let p = user.pictureURL {
                    o["picture"] = .object(["data": .object(["height": 50, "is_silhouette": false, "url": .string(p), "width": 50])])
                }
            default: break
            }
        }
        return .json(JSONValue.object(o).jsonString)
    }
}
