public import JOSE

/// The rules of the `local-userpass` provider.
public struct AccountPolicy: Sendable, Hashable {
    /// The identity provider name the accounts' identities carry.
    public var provider = "local-userpass"
    /// The shortest password, in Unicode scalars after NFC (at most ``PasswordRule/maxLength``). Default 6.
    public var minPasswordLength = 6
    /// Accounts are confirmed at registration, without a mail.
    public var autoConfirm = false
    /// scrypt parameters of new hashes. Default N = 2^17, r = 8, p = 1 (128 MiB per hash).
    public var hashParameters: Scrypt.Parameters = .default
    /// Seconds a confirmation token lives. Default 24 hours.
    public var confirmTokenLifetime: Int64 = 86_400
    /// Seconds a reset token lives. Default 30 minutes.
    public var resetTokenLifetime: Int64 = 1_800

    public init(minPasswordLength: Int = 6, autoConfirm: Bool = false) {
        self.minPasswordLength = minPasswordLength
        self.autoConfirm = autoConfirm
    }

    /// - Throws: `invalid_configuration` for a minimum length outside 1…128, or lifetimes outside 1 s…30 d.
    public func validate() throws {
        guard (1...PasswordRule.maxLength).contains(minPasswordLength) else {
            throw TokenError(.invalidConfiguration, "min_password_length must be 1…\(PasswordRule.maxLength), got \(minPasswordLength)")
        }
        guard (1...2_592_000).contains(confirmTokenLifetime), (1...2_592_000).contains(resetTokenLifetime) else {
            throw TokenError(.invalidConfiguration, "token lifetimes must be 1 s…30 d")
        }
        guard !provider.isEmpty, provider.utf8.count <= 64 else { throw TokenError(.invalidConfiguration, "provider name must be 1…64 bytes") }
    }
}

/// A confirmation or reset token as issued: shown once (mailed or handed to the app's function),
/// stored only as its SHA-256, in the one-time-token store (``OneTimeToken``).
public struct AccountToken: Sendable, Hashable {
    public var purpose: AccountTokenRecord.Purpose
    /// 32 random bytes, base64url: the secret half.
    public var token: String
    /// 16 random bytes, base64url: travels with the token (`tokenId`).
    public var tokenID: String
    /// The account's id.
    public var accountID: String
    /// The account's email as registered: where the mail goes.
    public var email: String
    public var expiresAt: Int64
    var createdAt: Int64

    /// Issues the token of `purpose` for `account` in `tx` (stored as a one-time token of the account's app).
    static func issue(
        _ tx: any SessionStoreTransaction, purpose: AccountTokenRecord.Purpose, account: AccountRecord, now: Int64, lifetime: Int64
    ) async throws -> AccountToken {
        let tokenID = try RandomID.make()
        let issued = try await tx.issueOneTimeToken(
            purpose: purpose.oneTime, app: account.app, subject: account.id, payload: try AccountTokenRecord.payload(tokenID: tokenID),
            createdAt: now, expiresAt: now + lifetime)
        return AccountToken(
            purpose: purpose, token: issued.token, tokenID: tokenID, accountID: account.id, email: account.email, expiresAt: now + lifetime,
            createdAt: now)
    }

    /// A token of the same shape that is never stored (for an address with no account to act on).
    static func decoy(purpose: AccountTokenRecord.Purpose, email: String, now: Int64, lifetime: Int64) throws -> AccountToken {
        let made = try OneTimeToken.make(purpose: purpose.oneTime, app: "", subject: "", createdAt: now, expiresAt: now + lifetime)
        return AccountToken(
            purpose: purpose, token: made.token, tokenID: try RandomID.make(), accountID: "", email: email, expiresAt: now + lifetime, createdAt: now)
    }
}
