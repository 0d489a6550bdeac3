import Foundation
import Hummingbird
import JOSE
import NIOCore
import Sessions

/// The pages the mailed links open: `GET /app/{app}/confirm` confirms on load;
/// `GET /app/{app}/reset` shows the form (or that the link was used or has expired), which posts to the same path (from any origin,
/// `Origin: null` included: the single-use token in the form is the CSRF defence).
struct AccountPageRoutes: Sendable {
    let server: AuthServer

    func confirm(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let accounts = try server.userpass(context)
        let (token, tokenID) = Self.tokenPair(request.uri.queryParameters.get("token"), request.uri.queryParameters.get("tokenId"))
        do {
            try await accounts.manager.confirm(token: token, tokenID: tokenID)
            return Self.page(.confirmed, app: accounts.appID)
        } catch let e as TokenError where e.code == .userpassTokenInvalid {
            let problem = try await accounts.manager.linkProblem(token: token, tokenID: tokenID, purpose: .confirm)
            return Self.page(.linkProblem(problem, purpose: .confirm), app: accounts.appID, status: .badRequest)
        }
    }

    func resetForm(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let accounts = try server.userpass(context)
        let (token, tokenID) = Self.tokenPair(request.uri.queryParameters.get("token"), request.uri.queryParameters.get("tokenId"))
        // A link already used or expired says so at once; any other gets the form (a live
        // token is only known to be good when it is spent).
        let problem = try await accounts.manager.linkProblem(token: token, tokenID: tokenID, purpose: .reset)
        if problem != .invalid { return Self.page(.linkProblem(problem, purpose: .reset), app: accounts.appID, status: .badRequest) }
        return Self.page(.resetForm(token: token, tokenID: tokenID, error: nil), app: accounts.appID)
    }

    /// The form's POST. Its limits (`reset_per_address`, `reset_per_token`) and the password
    /// budget are counted here, not by the table: a person at the form gets the form again with
    /// how long to wait, not a JSON body.
    func reset(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let accounts = try server.userpass(context)
        let form = Self.form(try await request.body.collect(upTo: context.maxUploadSize))
        let (token, tokenID) = Self.tokenPair(form["token"], form["tokenId"])
        do {
            return try await server.withPasswordBudget(context) {
                let password = form["password"] ?? "", repeated = form["confirm"] ?? ""
                let minLength = accounts.manager.policy.minPasswordLength
                if let error = AccountPages.formError(password: password, repeated: repeated, minLength: minLength) {
                    return Self.page(.resetForm(token: token, tokenID: tokenID, error: error), app: accounts.appID, status: .badRequest)
                }
                try await server.throttleReset(tokenID: tokenID, context)
                do {
                    let account = try await accounts.manager.resetPassword(token: token, tokenID: tokenID, newPassword: password)
                    try await server.queueMail(.notice("reset", app: accounts.appID, email: account.email), accounts: accounts)
                    return Self.page(.resetDone, app: accounts.appID)
                } catch let e as TokenError where e.code == .userpassTokenInvalid {
                    let problem = try await accounts.manager.linkProblem(token: token, tokenID: tokenID, purpose: .reset)
                    return Self.page(.linkProblem(problem, purpose: .reset), app: accounts.appID, status: .badRequest)
                }
            }
        } catch let e as TokenError where e.code == .tooManyRequests || e.code == .serverBusy {
            let after = e.retryAfter ?? 1
            var page = Self.page(
                .resetForm(token: token, tokenID: tokenID, error: .wait(seconds: Int(after))), app: accounts.appID,
                status: e.code == .serverBusy ? .serviceUnavailable : .tooManyRequests)
            page.headers[.retryAfter] = String(after)
            return page
        }
    }
    static func tokenPair(_ token: String?, _ tokenID: String?) -> (String, String) {
        (String((token ?? "").prefix(256)), String((tokenID ?? "").prefix(256)))
    }

    static func page(_ page: AccountPages.Page, app: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        for (name, value) in AccountPages.headers { if let n = HTTPFields.Element.Name(name) { headers[n] = value } }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: AccountPages.render(page, app: app))))
    }

    /// An `application/x-www-form-urlencoded` body (WHATWG URL §5.1): `+` is a space; a name or
    /// value that is not valid percent-encoding is empty.
    static func form(_ buffer: ByteBuffer) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in pairs(String(buffer: buffer), max: 16) where fields[name] == nil { fields[name] = value }
        return fields
    }

    /// The name-value pairs of a form body or a query string, in order, repeats kept, at most
    /// `max` of them (the rest ignored).
    static func pairs(_ text: String, max: Int) -> [(name: String, value: String)] {
        text.split(separator: "&").prefix(max).map { pair in
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            return (decode(kv[0]), kv.count == 2 ? decode(kv[1]) : "")
        }
    }
}
