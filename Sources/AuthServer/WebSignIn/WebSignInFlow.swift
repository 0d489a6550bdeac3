import Foundation
import JOSE
import Sessions
import OIDCProvider

extension OneTimeTokenPurpose {
    /// A web sign-in's upstream round trip (``WebSignInFlow``): 10 minutes, single-use; its
    /// subject is the login method's config name (`oauth2-google`).
    static let webSignIn = OneTimeTokenPurpose(rawValue: "web_sign_in")
}

/// Who started a web sign-in, and so where its answer goes.
///
/// Each case is one caller. A caller's start route checks where the answer is to go and calls
/// ``WebSignInRoutes/begin(_:for:app:)``; the callback's `switch` over the caller (in
/// ``WebSignInRoutes``) answers it.
enum WebSignInCaller: Codable, Sendable, Hashable {
    /// realm-web's redirect flow: the browser goes back to `redirect` (one of the app's
    /// `redirect_uris`) with `#_baas_ua=…` or `#_baas_error=…`, and realm-web's `state`; `device`
    /// is its `device` parameter decoded (kept with the session as a POST login's `options.device`).
    case appServices(redirect: String, state: String, device: JSONValue?)
    /// The OpenID Provider's hosted login page, by its "Continue with …" buttons: `flowHandle` is
    /// the ``OIDCFlowHandle`` of the authorization it resumes (the flow itself stays in its own
    /// record). The identity signs in the OP session and the authorization goes on as after a
    /// password; a refusal shows that flow's login page again with the message.
    case hostedLogin(flowHandle: String)
    /// realm-web's `linkCredentials` with a redirect credential, once its confirmation page's
    /// button was pressed (Routes/WebSignIn+Link.swift): the identity joins `userID`, whose session
    /// `sessionID` goes on; the browser goes back to `redirect` with `#_baas_link=ok` or `#_baas_error`.
    case link(userID: String, sessionID: String, redirect: String, state: String)
}

/// What the server keeps of one upstream round trip, as the payload of a `web_sign_in` one-time
/// token whose token is the `state` sent upstream (``handle(token:app:)``). Versioned JSON: a
/// record of another ``version`` is treated as unknown.
struct WebSignInFlow: Codable, Sendable, Hashable {
    static let version = 1
    /// How long the provider's page may take: 10 minutes.
    static let lifetime: Int64 = 600

    var version = Self.version
    var caller: WebSignInCaller
    /// The OpenID Connect `nonce` sent upstream (Google, Apple); the id_token must carry it.
    var nonce: String
    /// The PKCE verifier whose S256 challenge was sent upstream (Google); `nil` when none was.
    var verifier: String?
    var created: Int64
    /// ``FlowBinding/digest(_:)`` of the starting browser's binding value; `nil` in flows stored
    /// before web sign-in was bound (they are answered as before until they expire).
    var browser: String? = nil

    /// A new flow for `caller`, with a fresh nonce and, with `pkce`, a fresh verifier.
    /// - Throws: `internal_error` if the random generator fails.
    init(caller: WebSignInCaller, pkce: Bool, created: Int64) throws {
        self.caller = caller
        nonce = try RandomID.base64URL(bytes: 32)
        verifier = pkce ? try RandomID.base64URL(bytes: 32) : nil
        self.created = created
    }

    /// The S256 challenge of ``verifier``.
    var challenge: String? { verifier.map(PKCE.challenge(forVerifier:)) }

    /// The `state` sent upstream: the token, a dot, and the app whose store entry it is (the
    /// callback is the server's, not an app's), as ``OIDCFlowHandle`` spells a flow and its client.
    static func handle(token: String, app: String) -> String { OIDCFlowHandle.make(token: token, clientID: app) }
}

extension SessionStore {
    /// Stores `flow` of `method` (its config name) for `app`.
    /// - Returns: the `state` to send upstream.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    func startWebSignIn(_ flow: WebSignInFlow, method: String, app: String) async throws -> String {
        try await storeFlow(flow, purpose: .webSignIn, method: method, app: app, created: flow.created, lifetime: WebSignInFlow.lifetime)
    }

    /// Stores `record` of `method` for `app` as a one-time token of `purpose`, `lifetime` seconds
    /// from `created`: the handle (`TOKEN.APP`) that names it.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    func storeFlow(_ record: some Encodable & Sendable, purpose: OneTimeTokenPurpose, method: String, app: String, created: Int64, lifetime: Int64)
        async throws -> String
    {
        let token = try await storeRecord(record, purpose: purpose, app: app, subject: method, created: created, lifetime: lifetime)
        return WebSignInFlow.handle(token: token, app: app)
    }

    /// Ends the flow `state` names, for the callback of `method`: its app and record, or `nil`
    /// when the state is malformed, unknown, used, expired, of another method (left as it was)
    /// or not a flow of this version: the callback's 400 page. Of two callbacks with one state,
    /// one gets the flow.
    /// - Throws: `store_unavailable`.
    func finishWebSignIn(state: String, method: String, apps: Set<String>, at time: Int64) async throws -> (app: String, flow: WebSignInFlow)? {
        guard let (token, app) = OIDCFlowHandle.parse(state), apps.contains(app) else { return nil }
        let flow = try await consumeRecord(
            WebSignInFlow.self, token: token, purpose: .webSignIn, app: app, subject: method, at: time, accept: { $0.version == WebSignInFlow.version })
        return flow.map { (app, $0) }
    }
}
