import Foundation
public import Sessions

/// A login flow read back from the store, with the request it resumes.
public struct OIDCResumedFlow: Sendable {
    /// The handle it was named by (``OIDCFlowHandle``).
    public var handle: String
    public var flow: OIDCLoginFlow
    /// The request, with the client as configured now.
    public var request: OIDCAuthorizationRequest
}

/// What redeeming an authorization code came to.
package enum OIDCCodeRedemption: Sendable {
    /// The code was consumed by this call and passed every check.
    case redeemed(OIDCAuthorizationCode)
    /// `invalid_grant`: unknown, expired, malformed, or failing a check (then not consumed:
    /// the check's refusal rolls the consumption back, so the rightful client can still redeem it).
    case refused(OAuthError)
    /// `invalid_grant` for a code used before: what the first use started (``OIDCAuthorizationCode/sessionID``)
    /// is to be ended.
    case reused(OIDCAuthorizationCode, OAuthError)
}

/// A second use of an authorization code: `invalid_grant`, and what the first use started
/// (``OIDCAuthorizationCode/sessionID``) is to be ended.
package struct OIDCCodeReuse: Error {
    package let first: OIDCAuthorizationCode
    package let error: OAuthError
}

extension SessionStoreTransaction {
    /// Stores `flow` for `app` (the client's) for ``OIDCLoginFlow/lifetime``.
    /// - Returns: the handle to put in the page's URL.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func issueLoginFlow(_ flow: OIDCLoginFlow, app: String) async throws -> String {
        let issued = try await issueOneTimeToken(
            purpose: .loginFlow, app: app, subject: flow.clientID, payload: try RecordPayload.encode(flow), createdAt: flow.created,
            expiresAt: flow.created + OIDCLoginFlow.lifetime)
        return OIDCFlowHandle.make(token: issued.token, clientID: flow.clientID)
    }

    /// The live flow `handle` names, read (`consume` false: the page shown again) or consumed
    /// (`consume` true: the flow ends here, with a code or an error sent to the client); `nil`
    /// when the handle is malformed, unknown, used or expired, the record is not a flow of this
    /// version, or its client or redirect URI is no longer configured: the 400 error page.
    /// - Throws: `store_unavailable`.
    public func loginFlow(handle: String, clients: [String: OIDCClientConfig], at time: Int64, consume: Bool) async throws -> OIDCResumedFlow? {
        guard let (token, clientID) = OIDCFlowHandle.parse(handle), let client = clients[clientID] else { return nil }
        // Checked before it is consumed: a handle naming another client, or a flow its client
        // can no longer resume, leaves the record as it was.
        guard let record = try await lookUpOneTimeToken(token, purpose: .loginFlow, app: client.app), record.subject == clientID,
            let flow = RecordPayload.decode(OIDCLoginFlow.self, record.payload), flow.version == OIDCLoginFlow.version, flow.clientID == clientID,
            let request = flow.request(clients: clients)
        else { return nil }
        if consume {
            guard try await consumeOneTimeToken(token, purpose: .loginFlow, app: client.app, at: time).consumed != nil else { return nil }
        } else {
            guard record.state(at: time) == .live else { return nil }
        }
        return OIDCResumedFlow(handle: handle, flow: flow, request: request)
    }

    /// Stores `code` for `app` (the client's) for ``OIDCAuthorizationCode/lifetime``, its user as subject.
    /// - Returns: the `code` to send to the client.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func issueAuthorizationCode(_ code: OIDCAuthorizationCode, app: String) async throws -> String {
        try await issueOneTimeToken(
            purpose: .authorizationCode, app: app, subject: code.userID, payload: try RecordPayload.encode(code), createdAt: code.created,
            expiresAt: code.created + OIDCAuthorizationCode.lifetime
        ).token
    }
}

extension SessionStore {
    /// The live flow `handle` names, read (`consume` false) or ended (`consume` true) in a
    /// transaction of its own (``SessionStoreTransaction/loginFlow(handle:clients:at:consume:)``).
    /// - Throws: `store_unavailable`.
    public func loginFlow(handle: String, clients: [String: OIDCClientConfig], at time: Int64, consume: Bool) async throws -> OIDCResumedFlow? {
        consume
            ? try await transaction { tx in try await tx.loginFlow(handle: handle, clients: clients, at: time, consume: true) }
            : try await read { tx in try await tx.loginFlow(handle: handle, clients: clients, at: time, consume: false) }
    }

    /// Stores the flow of `request` (a new CSRF token with it, bound to the browser whose
    /// binding value has the digest `browser`) in one transaction.
    /// - Returns: the handle for the page's URL, and the flow.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func startLoginFlow(_ request: OIDCAuthorizationRequest, hintedSubject: String? = nil, browser: String? = nil, at time: Int64)
        async throws -> (handle: String, flow: OIDCLoginFlow)
    {
        let flow = try OIDCLoginFlow(request, hintedSubject: hintedSubject, created: time, browser: browser)
        let handle = try await transaction { tx in try await tx.issueLoginFlow(flow, app: request.client.app) }
        return (handle, flow)
    }

    /// Ends the flow `handle` names and issues its authorization code, in one transaction: of two
    /// posts of one flow, one gets a code. `nil` as ``SessionStoreTransaction/loginFlow(handle:clients:at:consume:)``.
    /// - Returns: the flow and the `code` for ``OIDCAuthorizationRequest/successLocation(code:issuer:)``.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func finishLoginFlow(
        handle: String, clients: [String: OIDCClientConfig], userID: String, authTime: Int64, amr: [String], opSessionID: String,
        at time: Int64
    ) async throws -> (flow: OIDCResumedFlow, code: String)? {
        try await transaction { tx in
            guard let resumed = try await tx.loginFlow(handle: handle, clients: clients, at: time, consume: true) else { return nil }
            let code = try OIDCAuthorizationCode(resumed.flow, userID: userID, authTime: authTime, amr: amr, opSessionID: opSessionID, created: time)
            return (resumed, try await tx.issueAuthorizationCode(code, app: resumed.request.client.app))
        }
    }
}

extension SessionStoreTransaction {
    /// Redeems `code` for the authenticated client `clientID` of `app`: consumed and checked
    /// (``OIDCCodeBinding/redemptionProblem(clientID:redirectURI:verifier:)``). Run it in the
    /// transaction that creates the code's session: a refusal thrown rolls the consumption back
    /// (the rightful client can still redeem the code), and whoever finds the code used finds
    /// that session too.
    /// - Throws: ``OAuthError`` `invalid_grant` (unknown, expired, malformed or failing a check);
    ///   ``OIDCCodeReuse`` for a code used before; `store_unavailable`.
    package func redeemAuthorizationCode(_ code: String, clientID: String, app: String, redirectURI: String?, verifier: String?, at time: Int64)
        async throws -> OIDCAuthorizationCode
    {
        switch try await consumeOneTimeToken(code, purpose: .authorizationCode, app: app, at: time) {
        case .consumed(let record):
            guard let stored = RecordPayload.decode(OIDCAuthorizationCode.self, record.payload), stored.version == OIDCAuthorizationCode.version
            else { throw OAuthError.invalidGrant("the code is not valid") }
            if let problem = stored.binding.redemptionProblem(clientID: clientID, redirectURI: redirectURI, verifier: verifier) { throw problem }
            return stored
        case .refused(.used, let record):
            let refusal = OAuthError.invalidGrant("the code was already used")
            guard let stored = RecordPayload.decode(OIDCAuthorizationCode.self, record.payload) else { throw refusal }
            // Only the code's own client, proving what its first use proved (the verifier, the
            // redirect URI), ends that use's session: another client of the app, or a guess without
            // the verifier, must not be able to sign the rightful client's user out.
            guard stored.binding.redemptionProblem(clientID: clientID, redirectURI: redirectURI, verifier: verifier) == nil else { throw refusal }
            throw OIDCCodeReuse(first: stored, error: refusal)
        case .refused:
            throw OAuthError.invalidGrant("the code has expired")
        case .unknown:
            throw OAuthError.invalidGrant("the code is not valid")
        }
    }
}

extension SessionStore {
    /// The redemption alone, in its own transaction (no session started): what
    /// ``SessionStoreTransaction/redeemAuthorizationCode(_:clientID:app:redirectURI:verifier:at:)`` came to.
    /// - Throws: `store_unavailable`.
    package func redeemAuthorizationCode(_ code: String, clientID: String, app: String, redirectURI: String?, verifier: String?, at time: Int64)
        async throws -> OIDCCodeRedemption
    {
        do {
            return .redeemed(
                try await transaction { tx in
                    try await tx.redeemAuthorizationCode(code, clientID: clientID, app: app, redirectURI: redirectURI, verifier: verifier, at: time)
                })
        } catch let refusal as OAuthError {
            return .refused(refusal)
        } catch let reuse as OIDCCodeReuse {
            return .reused(reuse.first, reuse.error)
        }
    }
}

extension SessionStore {
    /// Issues the authorization code of `request` straight from a live OP session: the browser
    /// is signed in and no page is needed (a first-party client, or a consent given before).
    /// - Returns: the `code` for ``OIDCAuthorizationRequest/successLocation(code:issuer:)``.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func issueAuthorizationCode(_ request: OIDCAuthorizationRequest, session: OPSession, at time: Int64) async throws -> String {
        let flow = try OIDCLoginFlow(request, created: time)
        let code = try OIDCAuthorizationCode(
            flow, userID: session.userID, authTime: session.authTime, amr: session.amr, opSessionID: session.sessionID, created: time)
        return try await transaction { tx in try await tx.issueAuthorizationCode(code, app: request.client.app) }
    }
}

extension SessionManager {
    /// The authorization code grant's store work for the authenticated client `clientID` of
    /// `app`: the code redeemed (``SessionStoreTransaction/redeemAuthorizationCode(_:clientID:app:redirectURI:verifier:at:)``)
    /// and its session issued in one transaction, so a second use, which ends that session, can
    /// never land between them. The code's browser session must still be live (a logout or a
    /// reset since the code was issued ends it): else the tokens would outlive what no later
    /// logout could end.
    /// - Returns: the tokens, the redeemed code, and the sign-in the session records.
    /// - Throws: ``OAuthError`` `invalid_grant`; ``OIDCCodeReuse`` for a code used before;
    ///   Sessions' refusals (`user_not_found`, `user_disabled`); `store_unavailable`.
    package func issueTokens(
        redeeming code: String, clientID: String, app: String, redirectURI: String?, verifier: String?, at now: Int64
    ) async throws -> (TokenPair, OIDCAuthorizationCode, SessionSignIn) {
        let (pair, (redeemed, signIn)): (TokenPair, (OIDCAuthorizationCode, SessionSignIn)) = try await issueTokens(clientID: clientID) { tx in
            let stored = try await tx.redeemAuthorizationCode(code, clientID: clientID, app: app, redirectURI: redirectURI, verifier: verifier, at: now)
            guard try await tx.opBrowserSessions(app: app, userID: stored.userID, at: now).contains(where: { $0.sessionID == stored.opSessionID })
            else { throw OAuthError.invalidGrant("the browser session of this code has ended") }
            let signIn = SessionSignIn(opSessionID: stored.opSessionID, authTime: stored.authTime, amr: stored.amr, scopes: stored.binding.scopes)
            return (SessionGrant(userID: stored.userID, sessionID: stored.sessionID, signIn: signIn), (stored, signIn))
        }
        return (pair, redeemed, signIn)
    }
}

extension SessionStore {
    /// What the ID token's and userinfo's profile and email claims of `userID` come from, in one
    /// read: the user's identities (oldest first) and its email/password account.
    /// - Throws: `store_unavailable`.
    package func claimSources(userID: String) async throws -> (identities: [IdentityRecord], account: AccountRecord?) {
        try await read { tx in (try await tx.identities(userID: userID), try await tx.account(userID: userID)) }
    }
}
