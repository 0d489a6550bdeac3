import JOSE

extension OneTimeTokenPurpose {
    /// An OpenID Provider browser session (AuthServer's `OPSession`): its cookie's token, looked up
    /// while it lives and consumed only to end it; payload `{"v","sid","auth_time","amr"}`.
    public static let opSession = OneTimeTokenPurpose(rawValue: "op_session")
}

/// A live OP browser session of a user, as the account's own session list shows it and as what
/// ends it (a password reset, a new second factor, the user's own "sign out there") finds it.
public struct OPBrowserSession: Sendable, Hashable {
    /// `sid` of the ID tokens issued through it: no secret (the cookie's token is).
    public var sessionID: String
    /// The store's key of its row (the token's SHA-256).
    public var hash: String
    public var createdAt: Int64
    /// When the browser last signed in to it.
    public var authTime: Int64
    public var amr: [String]
    public var expiresAt: Int64

    /// The record as a list shows it: decoded as ``OPSession`` is, by its one payload type.
    init?(_ record: OneTimeTokenRecord) {
        guard let session = OPSession(record) else { return nil }
        sessionID = session.sessionID
        hash = record.hash
        createdAt = record.createdAt
        authTime = session.authTime
        amr = session.amr
        expiresAt = record.expiresAt
    }
}

/// At most this many of a user's OP browser sessions are listed (and ended one by one).
private let maxListedOPSessions = 100

extension SessionStoreTransaction {
    /// The live OP browser sessions of `userID` in `app`, newest first.
    /// - Throws: `store_unavailable`.
    public func opBrowserSessions(app: String, userID: String, at now: Int64) async throws -> [OPBrowserSession] {
        try await liveOneTimeTokens(purpose: .opSession, app: app, subject: userID, at: now, limit: maxListedOPSessions)
            .compactMap(OPBrowserSession.init)
    }

    /// Ends every OP browser session of the user in this transaction (a password reset).
    /// - Returns: how many ended.
    /// - Throws: `store_unavailable`.
    @discardableResult
    public func endOPBrowserSessions(app: String, userID: String, at now: Int64) async throws -> Int {
        try await expireOneTimeTokens(purpose: .opSession, app: app, subject: userID, at: now)
    }
}

extension SessionManager {
    /// The user's live OP browser sessions in this app.
    /// - Throws: `store_unavailable`.
    public func opBrowserSessions(of userID: String) async throws -> [OPBrowserSession] {
        let (app, now) = (configuration.app, configuration.now)
        return try await store.read { tx in try await tx.opBrowserSessions(app: app, userID: userID, at: now) }
    }

    /// Ends the user's OP browser session `sid` (the account's "sign out there").
    /// - Returns: `false` when the user has no live one of that `sid`.
    /// - Throws: `store_unavailable`.
    public func endOPBrowserSession(userID: String, sessionID sid: String) async throws -> Bool {
        let (app, now) = (configuration.app, configuration.now)
        return try await store.transaction { tx in
            guard let target = try await tx.opBrowserSessions(app: app, userID: userID, at: now).first(where: { $0.sessionID == sid }) else {
                return false
            }
            return try await tx.consumeOneTimeToken(purpose: .opSession, hash: target.hash, app: app, at: now) != nil
        }
    }
}

extension SessionManager {
    /// The live OP browser sessions of `userID` in the user's own app, newest first: what an
    /// operator sees (`tokentool user op-sessions`), whatever app this manager's policy names.
    /// - Throws: `user_not_found`; `store_unavailable`.
    public func opBrowserSessions(ofUser userID: String) async throws -> [OPBrowserSession] {
        let now = configuration.now
        return try await store.read { tx in
            guard let user = try await tx.user(id: userID) else { throw TokenError(.userNotFound, "no user has id \"\(userID.prefix(64))\"") }
            return try await tx.opBrowserSessions(app: user.app, userID: userID, at: now)
        }
    }

    /// Ends the OP browser session `sid` of `userID` (in the user's own app) and, in the same
    /// transaction, revokes every session issued through it: its relying parties' tokens stop
    /// working, as after the browser's own logout (`tokentool user end-op-session`).
    /// - Returns: how many sessions were revoked; `nil` when the user has no live OP browser session `sid`.
    /// - Throws: `user_not_found`; `store_unavailable`.
    public func endOPBrowserSession(ofUser userID: String, sessionID sid: String, reason: String = "admin") async throws -> Int? {
        let now = configuration.now
        return try await store.transaction { tx in
            guard let user = try await tx.user(id: userID) else { throw TokenError(.userNotFound, "no user has id \"\(userID.prefix(64))\"") }
            guard let target = try await tx.opBrowserSessions(app: user.app, userID: userID, at: now).first(where: { $0.sessionID == sid }),
                try await tx.consumeOneTimeToken(purpose: .opSession, hash: target.hash, app: user.app, at: now) != nil
            else { return nil }
            return try await tx.revokeSessions(opSessionID: sid, at: now, reason: reason)
        }
    }
}
