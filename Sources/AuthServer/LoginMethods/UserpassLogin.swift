import JOSE
import Sessions

/// `local-userpass` `{"username","password"}`: an email/password account (registered through its
/// own routes, Routes/Accounts.swift); its first login makes the user, and with `?link=true` the
/// account joins the bearer's user in that login. Its refusals are its own (`login_failed`,
/// `email_not_confirmed`, 429 under `failed_login_per_account`).
struct UserpassLogin: LoginMethod {
    static let name = "local-userpass"
    static let loginBody: LoginBody = .members([.init("username", note: "the email"), .init("password")])
    static let amr = [AMRValue(name, "pwd")]
    static let capabilities: LoginCapabilities = [.link, .secondStep]
    static let answersOwnRefusals = true

    struct Config: Sendable {
        var autoConfirm = false
        var minPasswordLength: Int64 = 6
        var webhook: String?
        var webhookSecret: [UInt8]?
        var command: [String]?
        /// `confirm_token_ttl`: seconds a confirmation token lives (1 s…30 d, default 24 h).
        var confirmTokenTTL: Int64 = 86_400
        /// `reset_token_ttl`: seconds a reset token lives (1 s…30 d, default 30 min).
        var resetTokenTTL: Int64 = 1_800
    }

    /// The app's accounts (made from the same config), the sign-ins' slots per client address
    /// and `failed_login_per_account`.
    let accounts: AccountManager?
    let slots: AddressSlots
    let failureLimit: RateLimit

    init(config: Config, environment: LoginEnvironment) {
        accounts = environment.accounts?.manager
        slots = environment.passwordSlots
        failureLimit = environment.server.limits.failedLoginPerAccount
    }

    static func readConfig(_ o: inout ConfigObject, _ context: LoginConfigContext) throws -> Config {
        var l = Config()
        l.autoConfirm = try o.bool("auto_confirm") ?? false
        l.minPasswordLength = try o.int("min_password_length", range: 1...128) ?? 6
        func ttl(_ o: inout ConfigObject, _ member: String) throws -> Int64? {
            guard let ttl = try o.duration(member) else { return nil }
            guard (1...2_592_000).contains(ttl) else { throw o.error(member, "must be a duration of 1s…30d") }
            return ttl
        }
        l.confirmTokenTTL = try ttl(&o, "confirm_token_ttl") ?? l.confirmTokenTTL
        l.resetTokenTTL = try ttl(&o, "reset_token_ttl") ?? l.resetTokenTTL
        if var d = try o.object("delivery") {
            l.webhook = try d.callURL("webhook")
            l.webhookSecret = try context.secret(&d, "secret_file")
            l.command = try d.strings("command")
            if let argv = l.command {
                // The server appends the recipient as the last argument; `-t` would make the
                // program take recipients from the message's headers instead (or as well).
                guard !argv.isEmpty else { throw d.error("command", "must name a program") }
                if argv.dropFirst().contains(where: { $0.hasPrefix("-") && !$0.hasPrefix("--") && $0.count <= 4 && $0.contains("t") }) {
                    throw d.error("command", "must not take recipients from the message (-t): the server passes the recipient as the last argument")
                }
            }
            guard (l.webhook == nil) != (l.command == nil) else { throw o.error("delivery", "needs exactly one of webhook and command") }
            if l.webhook != nil, l.webhookSecret == nil { throw d.error("secret_file", "required with webhook") }
            try d.finish()
        }
        return l
    }

    /// `{"username","password"}`: the user id (the account's first login creates it; with
    /// `linkingTo`, the account joins that user), or `login_failed`, `email_not_confirmed`,
    /// `identity_in_use`, or 429 while `failed_login_per_account` holds for the email. The
    /// password is checked in one of the client address's slots (``AddressSlots``).
    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        guard let accounts else { throw TokenError(.providerNotFound, "the app has no local-userpass provider") }
        let email = try request.body.string("username", maxBytes: 1024), password = try request.body.string("password", maxBytes: 4096)
        let outcome = try await slots.withSlot(of: request.clientAddress ?? "") {
            try await accounts.login(email: email, password: password, failureLimit: failureLimit, linkingTo: request.linkingTo)
        }
        switch outcome {
        case .success(let userID):
            return .user(userID)
        case .throttled(let after):
            throw TokenError(.tooManyRequests, "too many failed logins for this email; try again in \(after) s").retrying(after: after)
        }
    }
}
