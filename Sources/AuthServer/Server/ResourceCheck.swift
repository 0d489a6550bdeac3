import AuthMiddleware
import Foundation
import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// The resource rows' credential (``RouteHandler/resource(_:_:)``): the access token of the
/// `Authorization` header, or of a POST's `access_token` form member (RFC 6750 §2.2), exactly
/// one, proved by the one resource check (``SessionService/checkAccess(_:audiences:requirement:presentedAs:singleSpace:)``)
/// as the App Services rows' ``BearerCheck`` is. Every refusal is a ``BearerTokenError``.
struct ResourceCheck: Sendable {
    let server: AuthServer

    /// The server's realm in its RFC 6750 challenges.
    static let realm = "tokentool"

    /// The verified access of `request`, noted as the request's app.
    /// - Throws: ``BearerTokenError``; `store_unavailable`.
    func access(of request: Request, requirement: AccessRequirement, context: AuthRequestContext) async throws -> ResourceAccess {
        let token = try await Self.token(of: request, context: context)
        do {
            let access = try await server.service.checkAccess(token, audiences: server.appIDs, requirement: requirement)
            context.app = access.app
            return access
        } catch let refusal as AccessRefusal {
            throw BearerTokenError.refused(refusal, realm: Self.realm)
        }
    }

    private static func refusal(_ status: HTTPResponse.Status, _ code: String, _ description: String) -> BearerTokenError {
        BearerTokenError(status: status, code: code, description: description, realm: realm)
    }

    /// The access token of the `Authorization` header, or of a POST's form body; exactly one.
    private static func token(of request: Request, context: AuthRequestContext) async throws -> String {
        var fromHeader: String?
        let headers = request.headers[values: .authorization]
        guard headers.count <= 1 else { throw refusal(.badRequest, "invalid_request", "send exactly one Authorization header") }
        if let header = headers.first {
            guard case .success(let token) = BearerCredentials.token(of: header) else {
                throw refusal(.unauthorized, "invalid_token", "the Authorization header must be Bearer and a token")
            }
            fromHeader = token
        }
        var fromBody: String?
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if request.method == .post, type == "application/x-www-form-urlencoded" {
            let form: OAuthForm
            do { form = try await OAuthForm.read(request, context: context) } catch let e as OAuthError {
                throw refusal(.badRequest, "invalid_request", e.description)
            }
            fromBody = form.optional("access_token")
        }
        switch (fromHeader, fromBody) {
        case (let token?, nil), (nil, let token?):
            guard token.utf8.count <= BearerCredentials.maxTokenBytes else { throw refusal(.unauthorized, "invalid_token", "the access token is too long") }
            return token
        case (_?, _?): throw refusal(.badRequest, "invalid_request", "send the access token once: header or body")
        case (nil, nil): throw refusal(.unauthorized, "invalid_token", "this call needs an access token")
        }
    }
}
