import Hummingbird
import JOSE
import Sessions

extension AuthServer {
    /// The `local-userpass` routes of the App Services client protocol (docs/accounts.md): register, confirm,
    /// confirm/send, reset/send, reset (and confirm/call, reset/call: AccountCalls.swift).
    /// Every answer is the same whether or not the email is registered; mail goes out afterwards.
    func addAccountRoutes(to routes: RouteTable) {
        let path = RouteTable.base + "/app/:app/auth/providers/local-userpass"
        routes.on(.post, path + "/register") { request, context in
            try await self.withPasswordBudget(context) {
                let accounts = try self.userpass(context)
                let body = try await RequestJSON.read(request, context: context)
                let email = try body.string("email", maxBytes: 1024), password = try body.string("password", maxBytes: 4096)
                try await self.throttle("register_addr:" + (context.clientAddress ?? ""), self.config.limits.registerPerAddress, context)
                switch try await accounts.manager.register(email: email, password: password) {
                case .created(_, let token?):
                    try await self.queueMail(.link(token, app: accounts.appID, publicURL: self.config.publicURL), accounts: accounts)
                case .created(_, nil): break
                case .taken(let owner): try await self.queueMail(.notice("register", app: accounts.appID, email: owner), accounts: accounts)
                }
                return JSONResponse.make(status: 201, .object(JSONObject()))
            }
        }
        routes.on(.post, path + "/confirm") { request, context in
            let accounts = try self.userpass(context)
            let body = try await RequestJSON.read(request, context: context)
            try await accounts.manager.confirm(token: try body.string("token", maxBytes: 256), tokenID: try body.string("tokenId", maxBytes: 256))
            return JSONResponse.noContent()
        }
        // `confirm/send` and `reset/send`: 204 whether or not a token is made (unknown address,
        // already confirmed), counted per client address under `send_per_address`. The store work
        // (the lookup, the token, the mail) happens after the answer, so that the answer and its
        // timing are the same for a registered address and an unknown one.
        for (route, purpose) in [("/confirm/send", AccountTokenRecord.Purpose.confirm), ("/reset/send", .reset)] {
            routes.on(.post, path + route) { request, context in
                let accounts = try self.userpass(context)
                let email = try await RequestJSON.read(request, context: context).string("email", maxBytes: 1024)
                try await self.throttle("send_addr:" + (context.clientAddress ?? ""), self.config.limits.sendPerAddress, context)
                let publicURL = self.config.publicURL
                self.background.add(String(route.dropFirst()), app: accounts.appID) {
                    let token =
                        purpose == .confirm
                        ? try await accounts.manager.issueConfirmation(email: email)
                        : try await accounts.manager.issueReset(email: email)
                    if let token { try await self.queueMail(.link(token, app: accounts.appID, publicURL: publicURL), accounts: accounts) }
                }
                return JSONResponse.noContent()
            }
        }
        routes.on(.post, path + "/reset") { request, context in
            try await self.withPasswordBudget(context) {
                let accounts = try self.userpass(context)
                let body = try await RequestJSON.read(request, context: context)
                let token = try body.string("token", maxBytes: 256), tokenID = try body.string("tokenId", maxBytes: 256)
                let password = try body.string("password", maxBytes: 4096)
                try await self.throttleReset(tokenID: tokenID, context)
                let account = try await accounts.manager.resetPassword(token: token, tokenID: tokenID, newPassword: password)
                try await self.queueMail(.notice("reset", app: accounts.appID, email: account.email), accounts: accounts)
                return JSONResponse.noContent()
            }
        }
        addAccountCallRoutes(to: routes, path: path)
        addAccountPageRoutes(to: routes)
    }

    /// The `local-userpass` login body `{"username","password"}`: the user id (the account's
    /// first login creates it; with `linkingTo`, the account joins that user), or `login_failed`,
    /// `email_not_confirmed`, `identity_in_use`, or 429 while `failed_login_per_account` holds for the email.
    func userpassLogin(_ body: RequestJSON, _ context: AuthRequestContext, linkingTo target: String? = nil) async throws -> String {
        let accounts = try userpass(context)
        let email = try body.string("username", maxBytes: 1024), password = try body.string("password", maxBytes: 4096)
        let limit = config.limits.failedLoginPerAccount
        switch try await accounts.manager.login(email: email, password: password, failureLimit: limit, linkingTo: target) {
        case .success(let userID):
            return userID
        case .throttled(let after):
            context.notes.retryAfter.withLock { $0 = after }
            throw TokenError(.tooManyRequests, "too many failed logins for this email; try again in \(after) s")
        }
    }
}
