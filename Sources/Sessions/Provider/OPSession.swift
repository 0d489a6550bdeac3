import JOSE

/// The OpenID Provider's browser session: who signed in on the hosted login page, when and how
/// (the server's cookie holds its token; ``OPBrowserSession`` is the same record as a user's
/// session list shows it).
///
/// Kept in the one-time-token store, purpose `op_session`: the cookie's value
/// (``OPSessionCookie``) is the token, the user is the subject, the expiry is the sign-in time plus
/// the app's `op_session_ttl`, and the payload is the versioned JSON `{"v","sid","auth_time","amr"}`.
/// It is read without being consumed for as long as it lives; it is consumed only to end it
/// (logout, or a new sign-in in the same browser). A re-authentication (the same user signing in
/// again) keeps `sid` and replaces the token: a new cookie value, new `auth_time` and `amr`, a
/// new expiry.
public struct OPSession: Sendable, Hashable {
    public var userID: String
    /// `sid` of the ID tokens issued through it: random, and no secret (the cookie's token is).
    public var sessionID: String
    /// When the user last signed in to it (Unix seconds): the ID tokens' `auth_time`.
    public var authTime: Int64
    /// RFC 8176 methods of that sign-in.
    public var amr: [String]
    /// The first second it no longer counts.
    public var expiresAt: Int64

    /// `true` when `max_age` seconds have passed since ``authTime`` at `now` (OIDC Core §3.1.2.1:
    /// the user must then sign in again).
    public func exceeds(maxAge: Int64?, at now: Int64) -> Bool {
        guard let maxAge else { return false }
        return now - authTime > maxAge
    }

    /// The record's payload, written and read by ``RecordPayload`` alone.
    struct Payload: Codable {
        static let version = 1
        var v: Int
        var sid: String
        var authTime: Int64
        var amr: [String]

        enum CodingKeys: String, CodingKey { case v, sid, authTime = "auth_time", amr }
    }

    init?(_ record: OneTimeTokenRecord) {
        guard record.purpose == .opSession, let p = RecordPayload.decode(Payload.self, record.payload), p.v == Payload.version else { return nil }
        self.init(userID: record.subject, sessionID: p.sid, authTime: p.authTime, amr: p.amr, expiresAt: record.expiresAt)
    }

    init(userID: String, sessionID: String, authTime: Int64, amr: [String], expiresAt: Int64) {
        self.userID = userID
        self.sessionID = sessionID
        self.authTime = authTime
        self.amr = amr
        self.expiresAt = expiresAt
    }
}

extension SessionStore {
    /// Signs `userID` in to the OP session of this browser, in one transaction: the session the
    /// browser's cookie named (`current`), if live, is ended; if it was the same user's, its `sid`
    /// goes on (a re-authentication), else a new one begins (another user replaces it).
    /// - Returns: the token for the cookie (``OPSessionCookie/setCookie(token:app:secure:maxAge:)``) and the session.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func signInOPSession(app: String, userID: String, amr: [String], ttl: Int64, current: String?, at now: Int64) async throws -> (
        token: String, session: OPSession
    ) {
        try await transaction { tx in
            var sid: String?
            if let current, let ended = try await tx.consumeOneTimeToken(current, purpose: .opSession, app: app, at: now).consumed,
                let previous = OPSession(ended), previous.userID == userID
            {
                sid = previous.sessionID
            }
            let session = OPSession(userID: userID, sessionID: try sid ?? RandomID.make(), authTime: now, amr: amr, expiresAt: now + ttl)
            let payload = try RecordPayload.encode(OPSession.Payload(v: OPSession.Payload.version, sid: session.sessionID, authTime: now, amr: amr))
            let issued = try await tx.issueOneTimeToken(
                purpose: .opSession, app: app, subject: userID, payload: payload, createdAt: now, expiresAt: session.expiresAt)
            return (issued.token, session)
        }
    }

    /// The live OP session the cookie's `token` names; `nil` when it is unknown, ended or expired.
    /// - Throws: `store_unavailable`.
    public func opSession(token: String, app: String, at now: Int64) async throws -> OPSession? {
        let record = try await read { tx in try await tx.lookUpOneTimeToken(token, purpose: .opSession, app: app) }
        guard let record, record.state(at: now) == .live else { return nil }
        return OPSession(record)
    }

    /// Ends the OP session the cookie's `token` names (logout).
    /// - Returns: the session ended; `nil` when it was not live.
    /// - Throws: `store_unavailable`.
    public func endOPSession(token: String, app: String, at now: Int64) async throws -> OPSession? {
        try await transaction { tx in try await tx.consumeOneTimeToken(token, purpose: .opSession, app: app, at: now).consumed.flatMap(OPSession.init)
        }
    }
}
