/// Rows of the email/password accounts, as the stores keep them (times in Unix seconds).

/// The email/password account of a user: at most one per user, one per normalised email and app.
public struct AccountRecord: Sendable, Hashable {
    /// The app the account was registered in.
    public var app: String
    public var userID: String
    /// The email as the user typed it at registration.
    public var email: String
    /// The email after NFC normalisation and lower-casing: what addresses are compared by (unique).
    public var emailKey: String
    /// A ``JOSE/PasswordHash`` string.
    public var passwordHash: String
    /// When the email was confirmed (or the account was auto-confirmed); `nil` until then.
    public var confirmedAt: Int64?
    public var createdAt: Int64

    public init(
        userID: String, email: String, emailKey: String, passwordHash: String, confirmedAt: Int64? = nil, createdAt: Int64, app: String = ""
    ) {
        self.app = app
        self.userID = userID
        self.email = email
        self.emailKey = emailKey
        self.passwordHash = passwordHash
        self.confirmedAt = confirmedAt
        self.createdAt = createdAt
    }
}

/// A confirmation or reset token, known only by its SHA-256 hash.
public struct AccountTokenRecord: Sendable, Hashable {
    /// What a token is for; a token of one purpose never serves the other.
    public enum Purpose: String, Sendable, Hashable {
        case confirm, reset
    }

    /// base64url(SHA-256(token)).
    public var hash: String
    /// The public half that travels with the token (`tokenId`); must match on use.
    public var tokenID: String
    public var userID: String
    public var purpose: Purpose
    public var createdAt: Int64
    public var expiresAt: Int64
    public var usedAt: Int64?

    public init(hash: String, tokenID: String, userID: String, purpose: Purpose, createdAt: Int64, expiresAt: Int64, usedAt: Int64? = nil) {
        self.hash = hash
        self.tokenID = tokenID
        self.userID = userID
        self.purpose = purpose
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }
}
