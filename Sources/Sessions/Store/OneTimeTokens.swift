import JOSE

/// One-time tokens: secrets handed out once (mailed, put in a redirect, shown to a function) and
/// taken back once. Confirmation and reset links are two purposes of them; authorization codes,
/// sign-in flows and second-factor challenges are the next. The store keeps one table of them,
/// `one_time_tokens` (docs/stores.md), and knows each token only by its SHA-256.

/// What a one-time token is for. A token of one purpose never serves another: every lookup and
/// every consumption names the purpose. New purposes are new values of this type; the stores need
/// no change.
public struct OneTimeTokenPurpose: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The text stored in the `purpose` column.
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// An email/password account's confirmation link.
    public static let confirm = OneTimeTokenPurpose(rawValue: "confirm")
    /// An email/password account's password reset link.
    public static let reset = OneTimeTokenPurpose(rawValue: "reset")

    public var description: String { rawValue }
}

/// A one-time token as the store keeps it (times in Unix seconds). The token itself is never
/// stored: only ``hash``.
public struct OneTimeTokenRecord: Sendable, Hashable {
    public var purpose: OneTimeTokenPurpose
    /// base64url(SHA-256(token)), ``OneTimeToken/hash(_:)``; unique within its purpose.
    public var hash: String
    /// The app the token belongs to: a lookup or consumption from another app does not find it.
    public var app: String
    /// What the token acts on (a confirmation's or reset's account id; an authorization code's user).
    public var subject: String
    /// Whatever else the purpose needs, as text (JSON by convention; may be empty). Not secret:
    /// it is stored as given. Checking it (an id that must match, a client, a redirect) is the
    /// caller's, inside the transaction that consumed the token: throwing rolls the consumption back.
    public var payload: String
    public var createdAt: Int64
    /// The first second at which the token no longer works.
    public var expiresAt: Int64
    /// When it was consumed; `nil` while unused.
    public var usedAt: Int64?

    public init(
        purpose: OneTimeTokenPurpose, hash: String, app: String, subject: String, payload: String = "", createdAt: Int64, expiresAt: Int64,
        usedAt: Int64? = nil
    ) {
        self.purpose = purpose
        self.hash = hash
        self.app = app
        self.subject = subject
        self.payload = payload
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usedAt = usedAt
    }

    /// How long the sweep keeps a token after it was used or expired (10 minutes): a token
    /// presented again meanwhile is told apart from an unknown one. A second use of an
    /// authorization code must still be seen as one (it ends what the first use started), so a
    /// used code is kept at least for its 60 s lifetime.
    public static let keptAfterEnd: Int64 = 600

    /// Whether the token still works at `now`, or why not.
    public func state(at now: Int64) -> OneTimeTokenState {
        if usedAt != nil { return .used }
        return expiresAt <= now ? .expired : .live
    }
}

/// Where a stored one-time token stands.
public enum OneTimeTokenState: String, Sendable, Hashable {
    /// Unused and not expired: it can be consumed.
    case live
    /// Consumed already (whether or not it has expired since).
    case used
    /// Unused, past its expiry (or ended early by a newer token of its subject and purpose).
    case expired
}

/// A one-time token as issued: ``token`` is shown once to whoever gets it; the store keeps ``record``.
public struct OneTimeToken: Sendable, Hashable {
    /// 32 random bytes, base64url (43 characters): the secret.
    public var token: String
    public var record: OneTimeTokenRecord

    /// Makes a token without storing it (``SessionStoreTransaction/issueOneTimeToken(purpose:app:subject:payload:createdAt:expiresAt:)``
    /// makes and stores one).
    /// - Throws: `internal_error` if the random generator fails.
    public static func make(
        purpose: OneTimeTokenPurpose, app: String, subject: String, payload: String = "", createdAt: Int64, expiresAt: Int64
    ) throws -> OneTimeToken {
        let token = try RandomID.base64URL(bytes: 32)
        return OneTimeToken(
            token: token,
            record: OneTimeTokenRecord(
                purpose: purpose, hash: hash(token), app: app, subject: subject, payload: payload, createdAt: createdAt, expiresAt: expiresAt))
    }

    /// base64url(SHA-256(token)): what the store keeps and looks tokens up by.
    public static func hash(_ token: String) -> String { Base64URL.encode(SHA2.sha256(Array(token.utf8))) }
}

/// The outcome of ``SessionStoreTransaction/consumeOneTimeToken(_:purpose:app:at:)``.
public enum OneTimeTokenConsumption: Sendable, Hashable {
    /// This call consumed the token (and no other call ever will).
    case consumed(OneTimeTokenRecord)
    /// The token exists but was not consumed: it was ``OneTimeTokenState/used`` or
    /// ``OneTimeTokenState/expired`` (read after the consumption found nothing).
    case refused(OneTimeTokenState, OneTimeTokenRecord)
    /// No token of that purpose and app has this hash (never issued, another purpose or app, or swept).
    case unknown

    /// The consumed record; `nil` when the token was refused or unknown.
    public var consumed: OneTimeTokenRecord? {
        if case .consumed(let record) = self { return record }
        return nil
    }
}

extension SessionStoreTransaction {
    /// Makes a token and stores its hash.
    /// - Returns: the token to hand out, with its record.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func issueOneTimeToken(
        purpose: OneTimeTokenPurpose, app: String, subject: String, payload: String = "", createdAt: Int64, expiresAt: Int64
    ) async throws -> OneTimeToken {
        let issued = try OneTimeToken.make(purpose: purpose, app: app, subject: subject, payload: payload, createdAt: createdAt, expiresAt: expiresAt)
        try await insertOneTimeToken(issued.record)
        return issued
    }

    /// The stored token of `purpose` and `app` that `token` is, used or not, expired or not, read
    /// without consuming it (a form shown before the token is used); `nil` for any other.
    /// - Throws: `store_unavailable`.
    public func lookUpOneTimeToken(_ token: String, purpose: OneTimeTokenPurpose, app: String) async throws -> OneTimeTokenRecord? {
        try await oneTimeToken(purpose: purpose, hash: OneTimeToken.hash(token), app: app)
    }

    /// Consumes `token` at `time` in one conditional statement
    /// (``consumeOneTimeToken(purpose:hash:app:at:)``): of any number of concurrent calls, one
    /// gets ``OneTimeTokenConsumption/consumed(_:)``. Only when nothing was consumed is the token
    /// read again, to say whether it was used, expired or unknown.
    /// - Throws: `store_unavailable`.
    public func consumeOneTimeToken(_ token: String, purpose: OneTimeTokenPurpose, app: String, at time: Int64) async throws
        -> OneTimeTokenConsumption
    {
        let hash = OneTimeToken.hash(token)
        if let record = try await consumeOneTimeToken(purpose: purpose, hash: hash, app: app, at: time) { return .consumed(record) }
        guard let record = try await oneTimeToken(purpose: purpose, hash: hash, app: app) else { return .unknown }
        let state = record.state(at: time)
        // Live only if another writer changed the row between the two statements: not this call's.
        return .refused(state == .live ? .used : state, record)
    }
}
