import Foundation
import Hummingbird
import Identity
import JOSE
import Sessions

/// `confirm/call` and `reset/call`: the token goes to the app's `custom-function` URL (signed
/// as the custom-function login is) instead of a mail, and the function's answer decides.
/// The function is called for every well-formed request, registered email or not (with no
/// account to act on it gets a token that is never stored), so its answer, not the store,
/// decides what the client sees: 204 for `success` and `pending`, 401 for a refusal, 502 for
/// a failure, alike for every email. Counted before any call or hash, for every well-formed
/// request alike: per client address under `call_per_address` (key `call_addr:<address>`, both
/// routes together, by the table), then per email under `mail_per_address` (key `call:<email>`,
/// known or not, here).
extension AccountRoutes {
    typealias ConfirmCall = (accounts: AppAccounts, function: CustomFunctionProvider, email: String)
    typealias ResetCall = (accounts: AppAccounts, function: CustomFunctionProvider, email: String, password: String, arguments: JSONValue?)

    func readConfirmCall(_ request: Request, _ context: AuthRequestContext) async throws -> ConfirmCall {
        let (accounts, function) = try userpassFunction(context)
        let body = try await RequestJSON.read(request, context: context)
        let email = try body.string("email", maxBytes: 1024)
        // The contract's body has a password; Realm clients send none. Bounded, never used.
        _ = try body.optionalString("password", maxBytes: 4096)
        return (accounts, function, email)
    }

    func confirmCall(_ input: ConfirmCall, _ context: AuthRequestContext) async throws -> Response {
        try await throttlePerEmail(input.email, context)
        _ = try await input.accounts.manager.confirmThroughFunction(email: input.email) { token in
            try await input.accounts.call(input.function, token: token, arguments: nil)
        }
        return JSONResponse.noContent()
    }

    func readResetCall(_ request: Request, _ context: AuthRequestContext) async throws -> ResetCall {
        let (accounts, function) = try userpassFunction(context)
        let body = try await RequestJSON.read(request, context: context)
        let email = try body.string("email", maxBytes: 1024), password = try body.string("password", maxBytes: 4096)
        let arguments = body.object["arguments"].flatMap { $0 == .null ? nil : $0 }
        if let arguments, arguments.arrayValue == nil {
            throw TokenError(.invalidParameter, "\"arguments\" must be an array, got \(arguments.typeName)")
        }
        return (accounts, function, email, password, arguments)
    }

    func resetCall(_ input: ResetCall, _ context: AuthRequestContext) async throws -> Response {
        let accounts = input.accounts
        try await throttlePerEmail(input.email, context)
        // The new password is hashed: one of the address's two password slots (AddressSlots).
        let outcome = try await server.withNewPasswordSlot(context) {
            try await accounts.manager.resetThroughFunction(email: input.email, newPassword: input.password) { token in
                try await accounts.call(input.function, token: token, arguments: input.arguments)
            }
        }
        if case .completed(let account) = outcome {
            try await server.queueMail(.notice("reset", app: accounts.appID, email: account.email), accounts: accounts)
        }
        return JSONResponse.noContent()
    }

    /// Counts one `confirm/call` or `reset/call` per email under `mail_per_address`; throws
    /// `too_many_requests` (429 with `Retry-After`) when the limit is reached.
    private func throttlePerEmail(_ email: String, _ context: AuthRequestContext) async throws {
        try await server.throttle("call:" + PasswordRule.emailKey(email), server.config.limits.mailPerAddress, context)
    }

    /// The app's accounts and its `custom-function` provider, or `function_not_configured`.
    private func userpassFunction(_ context: AuthRequestContext) throws -> (AppAccounts, CustomFunctionProvider) {
        let accounts = try server.userpass(context)
        guard let function = server.loginMethods[accounts.appID]?.method(CustomFunctionLogin.self)?.provider else {
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
