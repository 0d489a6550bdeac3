import Foundation

/// Rows of the email/password accounts, as the stores keep them (times in Unix seconds).

/// An email/password account: one per normalised email and app, registered before any user
/// exists; its first login creates its user, or a link joins it to an existing one (at most one
/// account per user).
public struct AccountRecord: Sendable, Hashable {
    /// The app the account was registered in.
    public var app: String
    /// The account's id: also the id of the user its first login creates (an account made before
    /// schema step 10 has its user's id).
    public var id: String
    /// The user the account signs in as; `nil` until its first login or a link.
    public var userID: String?
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
        id: String, userID: String?, email: String, emailKey: String, passwordHash: String, confirmedAt: Int64? = nil, createdAt: Int64,
        app: String = ""
    ) {
        self.app = app
        self.id = id
        self.userID = userID
        self.email = email
        self.emailKey = emailKey
        self.passwordHash = passwordHash
        self.confirmedAt = confirmedAt
        self.createdAt = createdAt
    }
}

/// A confirmation or reset token as the accounts read it: a one-time token
/// (``OneTimeTokenRecord``) of purpose `confirm` or `reset` whose subject is the account and
/// whose payload carries the token's public id, `{"tokenId":"…"}`.
public struct AccountTokenRecord: Sendable, Hashable {
    /// What a token is for; a token of one purpose never serves the other.
    public enum Purpose: String, Sendable, Hashable {
        case confirm, reset

        /// The one-time-token purpose of the same name.
        public var oneTime: OneTimeTokenPurpose { OneTimeTokenPurpose(rawValue: rawValue) }
    }

    /// base64url(SHA-256(token)).
    public var hash: String
    /// The public half that travels with the token (`tokenId`); must match on use.
    public var tokenID: String
    /// The account the token confirms or resets.
    public var accountID: String
    public var purpose: Purpose
    public var createdAt: Int64
    public var expiresAt: Int64
    public var usedAt: Int64?

    public init(hash: String, tokenID: String, accountID: String, purpose: Purpose, createdAt: Int64, expiresAt: Int64, usedAt: Int64? = nil) {
        self.hash = hash
        self.tokenID = tokenID
        self.accountID = accountID
        self.purpose = purpose
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }

    /// The account token a one-time token is; `nil` for another purpose or a payload without a `tokenId`.
    public init?(_ record: OneTimeTokenRecord) {
        guard let purpose = Purpose(rawValue: record.purpose.rawValue), let tokenID = Self.tokenID(payload: record.payload) else { return nil }
        self.init(
            hash: record.hash, tokenID: tokenID, accountID: record.subject, purpose: purpose, createdAt: record.createdAt,
            expiresAt: record.expiresAt, usedAt: record.usedAt)
    }

    /// The payload that carries `tokenID` (the form schema step 12 gave the tokens it moved).
    static func payload(tokenID: String) throws -> String {
        String(decoding: try JSONEncoder().encode(Payload(tokenId: tokenID)), as: UTF8.self)
    }

    static func tokenID(payload: String) -> String? {
        try? JSONDecoder().decode(Payload.self, from: Data(payload.utf8)).tokenId
    }

    private struct Payload: Codable {
        var tokenId: String
    }
}
