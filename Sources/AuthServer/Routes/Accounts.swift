import Hummingbird
import JOSE
import Sessions

/// The `local-userpass` routes of the App Services client protocol (docs/accounts.md): register, confirm,
/// confirm/send, reset/send, reset (and confirm/call, reset/call: AccountCalls.swift).
/// Every answer is the same whether or not the email is registered; mail goes out afterwards.
struct AccountRoutes: Sendable {
    let server: AuthServer

    /// `register`'s app and body (the table then counts `register_per_address`).
    func readRegistration(_ request: Request, _ context: AuthRequestContext) async throws -> (AppAccounts, email: String, password: String) {
        let accounts = try server.userpass(context)
        let body = try await RequestJSON.read(request, context: context)
        return (accounts, try body.string("email", maxBytes: 1024), try body.string("password", maxBytes: 4096))
    }

    func register(_ input: (AppAccounts, email: String, password: String), _ context: AuthRequestContext) async throws -> Response {
        let (accounts, email, password) = input
        let outcome = try await server.withNewPasswordSlot(context) {
            try await accounts.manager.register(email: email, password: password)
        }
        switch outcome {
        case .created(_, let token?):
            try await server.queueMail(.link(token, app: accounts.appID, publicURL: server.config.publicURL), accounts: accounts)
        case .created(_, nil): break
        case .taken(let owner): try await server.queueMail(.notice("register", app: accounts.appID, email: owner), accounts: accounts)
        }
        return JSONResponse.make(status: 201, .object(JSONObject()))
    }

    func confirm(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let accounts = try server.userpass(context)
        let body = try await RequestJSON.read(request, context: context)
        try await accounts.manager.confirm(token: try body.string("token", maxBytes: 256), tokenID: try body.string("tokenId", maxBytes: 256))
        return JSONResponse.noContent()
    }

    /// `confirm/send`'s and `reset/send`'s app and email (the table then counts `send_per_address`).
    func readEmail(_ request: Request, _ context: AuthRequestContext) async throws -> (AppAccounts, email: String) {
        let accounts = try server.userpass(context)
        return (accounts, try await RequestJSON.read(request, context: context).string("email", maxBytes: 1024))
    }

    func sendConfirmation(_ input: (AppAccounts, email: String), _ context: AuthRequestContext) async throws -> Response {
        send(.confirm, input)
    }

    func sendReset(_ input: (AppAccounts, email: String), _ context: AuthRequestContext) async throws -> Response { send(.reset, input) }

    /// `confirm/send` and `reset/send`: 204 whether or not a token is made (unknown address,
    /// already confirmed). The store work (the lookup, the token, the mail) happens after the
    /// answer, so that the answer and its timing are the same for a registered address and an unknown one.
    private func send(_ purpose: AccountTokenRecord.Purpose, _ input: (AppAccounts, email: String)) -> Response {
        let (accounts, email) = input
        let server = self.server, publicURL = server.config.publicURL
        server.background.add(purpose == .confirm ? "confirm/send" : "reset/send", app: accounts.appID) {
            let token =
                purpose == .confirm
                ? try await accounts.manager.issueConfirmation(email: email)
                : try await accounts.manager.issueReset(email: email)
            if let token { try await server.queueMail(.link(token, app: accounts.appID, publicURL: publicURL), accounts: accounts) }
        }
        return JSONResponse.noContent()
    }

    /// `reset` (within the password budget, which the table holds).
    func reset(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let accounts = try server.userpass(context)
        let body = try await RequestJSON.read(request, context: context)
        let token = try body.string("token", maxBytes: 256), tokenID = try body.string("tokenId", maxBytes: 256)
        let password = try body.string("password", maxBytes: 4096)
        try await server.throttleReset(tokenID: tokenID, context)
        let account = try await accounts.manager.resetPassword(token: token, tokenID: tokenID, newPassword: password)
        try await server.queueMail(.notice("reset", app: accounts.appID, email: account.email), accounts: accounts)
        return JSONResponse.noContent()
    }
}
