import Foundation
import Hummingbird
import JOSE
import Sessions

/// `GET`/`POST /oauth/userinfo` (OIDC Core §5.3), a resource row: the table's one resource check
/// (``ResourceCheck``) proves the access token (`Authorization: Bearer`, or a POST's
/// `access_token` form member) and its `openid` scope; 200 `{"sub", …the scopes' claims}`. A
/// missing, bad, expired or ended token is 401 with `WWW-Authenticate: Bearer … error="invalid_token"`
/// (RFC 6750 §3.1), a token without `openid` 403 `insufficient_scope`, a token sent twice 400
/// `invalid_request`.
struct OIDCUserinfoRoutes: Sendable {
    let server: AuthServer

    /// What userinfo needs of a token: any client of the app, granted `openid`.
    static let requirement = AccessRequirement(clients: .any, scopes: ["openid"])

    func userinfo(_ request: Request, _ context: AuthRequestContext, _ access: ResourceAccess) async throws -> Response {
        let user = try await server.userClaims(userID: access.userID)
        return JSONResponse.ok(OIDCClaims.userinfo(subject: access.userID, user: user, scopes: access.scopes), noStore: true)
    }
}
