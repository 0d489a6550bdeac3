import Foundation
import Hummingbird
import Identity
import JOSE
import Sessions

extension AuthServer {
    /// `confirm/call` and `reset/call`: the token goes to the app's `custom-function` URL (signed
    /// as the custom-function login is) instead of a mail, and the function's answer decides.
    /// The function is called for every well-formed request, registered email or not (with no
    /// account to act on it gets a token that is never stored), so its answer, not the store,
    /// decides what the client sees: 204 for `success` and `pending`, 401 for a refusal, 502 for
    /// a failure, alike for every email. Counted before any call or hash, for every well-formed
    /// request alike: per client address under `call_per_address` (key `call_addr:<address>`, both
    /// routes together), then per email under `mail_per_address` (key `call:<email>`, known or not).
    func addAccountCallRoutes(to routes: RouteTable, path: String) {
        routes.on(.post, path + "/confirm/call") { request, context in
            let (accounts, function) = try self.userpassFunction(context)
            let body = try await RequestJSON.read(request, context: context)
            let email = try body.string("email", maxBytes: 1024)
            // The contract's body has a password; Realm clients send none. Bounded, never used.
            _ = try body.optionalString("password", maxBytes: 4096)
            try await self.throttleCall(email: email, context)
            _ = try await accounts.manager.confirmThroughFunction(email: email) { token in
                try await accounts.call(function, token: token, arguments: nil)
            }
            return JSONResponse.noContent()
        }
        routes.on(.post, path + "/reset/call") { request, context in
            let (accounts, function) = try self.userpassFunction(context)
            let body = try await RequestJSON.read(request, context: context)
            let email = try body.string("email", maxBytes: 1024), password = try body.string("password", maxBytes: 4096)
            let arguments = body.object["arguments"].flatMap { $0 == .null ? nil : $0 }
            if let arguments, arguments.arrayValue == nil {
                throw TokenError(.invalidParameter, "\"arguments\" must be an array, got \(arguments.typeName)")
            }
            try await self.throttleCall(email: email, context)
            let outcome = try await accounts.manager.resetThroughFunction(email: email, newPassword: password) { token in
                try await accounts.call(function, token: token, arguments: arguments)
            }
            if case .completed(let account) = outcome {
                try await self.queueMail(.notice("reset", app: accounts.appID, email: account.email), accounts: accounts)
            }
            return JSONResponse.noContent()
        }
    }

    /// Counts one `confirm/call` or `reset/call` per client address, then per email; throws
    /// `too_many_requests` (429 with `Retry-After`) when either limit is reached.
    func throttleCall(email: String, _ context: AuthRequestContext) async throws {
        try await throttle("call_addr:" + (context.clientAddress ?? ""), config.limits.callPerAddress, context)
        try await throttle("call:" + PasswordRule.emailKey(email), config.limits.mailPerAddress, context)
    }

    /// The app's accounts and its `custom-function` provider, or `function_not_configured`.
    func userpassFunction(_ context: AuthRequestContext) throws -> (AppAccounts, CustomFunctionProvider) {
        let accounts = try userpass(context)
        guard let function = loginMethods[accounts.appID]?.method(CustomFunctionLogin.self)?.provider else {
            throw TokenError(
                .functionNotConfigured,
                "confirm/call and reset/call need the app's custom-function provider (its url and secret_file)")
        }
        return (accounts, function)
    }
}

extension AppAccounts {
    /// Hands `token` to the function: `{"type","app","email","token","tokenId","arguments"?}`.
    /// - Throws: `function_refused` (4xx), `function_failed` (unreachable, timeout, 5xx, an answer
    ///   over the size limit, or one without a `"status"` of `success`, `pending` or `fail`).
    func call(_ function: CustomFunctionProvider, token: AccountToken, arguments: JSONValue?) async throws -> AccountManager.FunctionVerdict {
        var body: JSONObject = [
            "type": .string(token.purpose.rawValue), "app": .string(appID), "email": .string(token.email),
            "token": .string(token.token), "tokenId": .string(token.tokenID),
        ]
        body["arguments"] = arguments
        let answer = try await function.call(body, purpose: token.purpose.rawValue)
        guard let status = answer["status"]?.stringValue, let verdict = AccountManager.FunctionVerdict(rawValue: status) else {
            throw TokenError(.customFunctionFailed, "the function's answer has no \"status\" of \"success\", \"pending\" or \"fail\"")
        }
        return verdict
    }
}
