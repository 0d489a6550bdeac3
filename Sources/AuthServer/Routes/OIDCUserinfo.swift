import Foundation
import Hummingbird
import JOSE
import Sessions

/// `GET`/`POST /oauth/userinfo` (OIDC Core §5.3): the access token as `Authorization: Bearer`
/// (GET or POST) or as the `access_token` form member (POST, RFC 6750 §2.2), live-checked; 200
/// `{"sub", …the scopes' claims}`. A missing, bad, expired or ended token is 401 with
/// `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 §3.1), a token without `openid` 403
/// `insufficient_scope`, a token sent twice 400 `invalid_request`.
struct OIDCUserinfoRoutes: Sendable {
    let server: AuthServer

    /// An RFC 6750 §3.1 refusal: JSON `{"error","error_description"}` and the `WWW-Authenticate` challenge.
    struct Refusal: Error {
        var status: Int
        var error: String
        var description: String

        static func invalidToken(_ d: String) -> Refusal { Refusal(status: 401, error: "invalid_token", description: d) }

        var response: Response {
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = "Bearer realm=\"tokentool\", error=\"\(error)\""
            let body: JSONObject = ["error": .string(error), "error_description": .string(OAuthError.describable(description))]
            return JSONResponse.make(status: status, .object(body), headers: headers, noStore: true)
        }
    }

    func userinfo(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        do {
            let token = try await Self.token(of: request, context: context)
            let claims: AccessTokenClaims
            do {
                claims = try await server.service.verifyAccessToken(token, audiences: server.appIDs, checkSession: false)
            } catch let e as TokenError where e.code.rejectsToken {
                throw Refusal.invalidToken("the access token is not valid: \(e.code.rawValue)")
            }
            guard let appID = claims.audience.first(where: { server.apps[$0] != nil }), let app = server.apps[appID],
                try await app.sessions.isLive(claims)
            else { throw Refusal.invalidToken("the session of this access token has ended, or its user is gone or disabled") }
            context.app = appID
            let scopes = (claims.scope ?? "").split(separator: " ").map(String.init)
            guard scopes.contains("openid") else {
                throw Refusal(status: 403, error: "insufficient_scope", description: "the access token was not granted the openid scope")
            }
            let user = try await server.userClaims(userID: claims.subject)
            return JSONResponse.ok(OIDCClaims.userinfo(subject: claims.subject, user: user, scopes: scopes), noStore: true)
        } catch let refusal as Refusal {
            return refusal.response
        }
    }

    /// The access token of the `Authorization` header, or of a POST's form body; exactly one.
    private static func token(of request: Request, context: AuthRequestContext) async throws -> String {
        var fromHeader: String?
        let headers = request.headers[values: .authorization]
        guard headers.count <= 1 else { throw Refusal(status: 400, error: "invalid_request", description: "send exactly one Authorization header") }
        if let header = headers.first {
            guard case .success(let token) = BearerCredentials.token(of: header) else {
                throw Refusal.invalidToken("the Authorization header must be \"Bearer\" and a token")
            }
            fromHeader = token
        }
        var fromBody: String?
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if request.method == .post, type == "application/x-www-form-urlencoded" {
            let form: OAuthForm
            do { form = try await OAuthForm.read(request, context: context) } catch let e as OAuthError {
                throw Refusal(status: 400, error: "invalid_request", description: e.description)
            }
            fromBody = form.optional("access_token")
        }
        switch (fromHeader, fromBody) {
        case (let token?, nil), (nil, let token?):
            guard token.utf8.count <= BearerCredentials.maxTokenBytes else { throw Refusal.invalidToken("the access token is too long") }
            return token
        case (_?, _?): throw Refusal(status: 400, error: "invalid_request", description: "send the access token once: header or body")
        case (nil, nil): throw Refusal.invalidToken("this call needs an access token")
        }
    }
}
