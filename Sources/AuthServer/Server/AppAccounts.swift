import Foundation
import Identity
import JOSE
import Sessions

/// One app's `local-userpass` provider: its account policy, its mail delivery, and the limits.
struct AppAccounts: Sendable {
    let appID: String
    let manager: AccountManager
    let delivery: MailDelivery?

    /// The provider of `app`, or `nil` when the app has none. `hasher` (sign-ins) and
    /// `newPasswords` (registrations, resets) are the server's: their bounds on concurrent scrypt
    /// calls hold across every app, each apart from the other.
    static func make(
        app: AppConfig, sessions: SessionManager, hasher: PasswordHasher, newPasswords: PasswordHasher, transport: any HTTPTransport
    ) throws -> AppAccounts? {
        guard let l = app.providers[UserpassLogin.name]?.config(of: UserpassLogin.self) else { return nil }
        var policy = AccountPolicy(minPasswordLength: Int(l.minPasswordLength), autoConfirm: l.autoConfirm)
        policy.hashParameters = hasher.parameters
        policy.confirmTokenLifetime = l.confirmTokenTTL
        policy.resetTokenLifetime = l.resetTokenTTL
        let delivery: MailDelivery? =
            if let url = l.webhook, let secret = l.webhookSecret {
                MailDelivery(method: .webhook(url: url, secret: secret), transport: transport)
            } else if let argv = l.command {
                MailDelivery(method: .command(argv), transport: transport)
            } else {
                nil
            }
        return AppAccounts(
            appID: app.id, manager: try AccountManager(sessions: sessions, policy: policy, hasher: hasher, newPasswordHasher: newPasswords),
            delivery: delivery)
    }
}

extension AuthServer {
    /// Counts one event on `key` under `limit`, or refuses the request with 429 and `Retry-After`.
    func throttle(_ key: String, _ limit: RateLimit, _ context: AuthRequestContext) async throws {
        if case .refused(let after) = try await Throttle(store: store).hit(key, limit: limit) {
            throw TokenError(.tooManyRequests, "too many requests; try again in \(after) s").retrying(after: after)
        }
    }

    /// Runs `work` (a registration or a password reset) within ``passwordWork``, or refuses it at
    /// once with 503 `ServiceUnavailable` and `Retry-After: 1` when that budget is spent.
    func withPasswordBudget<T: Sendable>(_ context: AuthRequestContext, _ work: () async throws -> T) async throws -> T {
        guard passwordWork.enter() else {
            throw TokenError(.serverBusy, "too many registrations and password resets at once; try again shortly").retrying(after: 1)
        }
        defer { passwordWork.leave() }
        return try await work()
    }

    /// Counts one `reset` (the API's or the page's form) per client address, then per `tokenId`;
    /// throws `too_many_requests` (429 with `Retry-After`) when either limit is reached.
    func throttleReset(tokenID: String, _ context: AuthRequestContext) async throws {
        try await throttle("reset_addr:" + (context.clientAddress ?? ""), config.limits.resetPerAddress, context)
        try await throttle("reset_token:" + tokenID, config.limits.resetPerToken, context)
    }

    /// Queues `mail` unless the recipient's `mail_per_address` limit is reached (then it is
    /// dropped, silently: the answer must not change). Never delays the answer.
    func queueMail(_ mail: AccountMail, accounts: AppAccounts) async throws {
        guard let delivery = accounts.delivery else { return }
        let key = "mail:" + PasswordRule.emailKey(mail.email)
        guard case .allowed = try await Throttle(store: store).hit(key, limit: config.limits.mailPerAddress) else {
            logger.warning("mail dropped: mail_per_address limit", metadata: ["app": .string(accounts.appID), "kind": .string(mail.kind.rawValue)])
            return
        }
        background.add("mail \(mail.kind.rawValue)", app: accounts.appID) { await delivery.send(mail) }
    }

    /// The app's accounts, or `provider_not_found` when it has no `local-userpass` provider.
    func userpass(_ context: AuthRequestContext) throws -> AppAccounts {
        try userpass(app: try pathApp(context).config.id)
    }

    /// The accounts of the app `id`, or `provider_not_found` when it has no `local-userpass` provider.
    func userpass(app id: String) throws -> AppAccounts {
        guard let accounts = accounts[id] else { throw TokenError(.providerNotFound, "the app has no local-userpass provider") }
        return accounts
    }
}
