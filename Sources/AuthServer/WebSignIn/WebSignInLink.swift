import Foundation
import JOSE
import Sessions
import OIDCProvider

extension OneTimeTokenPurpose {
    /// A link through the redirect flow waiting for its confirmation page (``WebSignInLinkFlow``):
    /// 10 minutes, single-use; its subject is the login method's config name.
    static let webSignInLink = OneTimeTokenPurpose(rawValue: "web_sign_in_link")
}

/// What the server keeps of a link started by realm-web's `linkCredentials` with a redirect
/// credential (`GET …/login?link=true&providerRedirectHeader=true` with the user's access token),
/// until the user confirms it on the hosted page `PUBLIC_URL/oauth/link?flow=HANDLE`
/// (``WebSignInRoutes/linkPage(_:_:)``). Versioned JSON, as ``WebSignInFlow``.
struct WebSignInLinkFlow: Codable, Sendable, Hashable {
    static let version = 1
    /// How long the page may wait for its button: 10 minutes.
    static let lifetime: Int64 = 600

    var version = Self.version
    /// The bearer's user, whom the provider's identity is to join.
    var userID: String
    /// The bearer's session, which goes on with a fresh access token.
    var sessionID: String
    /// One of the app's `redirect_uris`, where the answer goes.
    var redirect: String
    /// realm-web's `state`, given back in `#_baas_state`.
    var state: String
    var created: Int64

    /// The confirmation form's CSRF token: SHA-256 of the flow's token and the browser's
    /// ``FlowBinding`` value, so that only the browser that loaded the page can post it (a page
    /// of another site knows neither value).
    static func csrf(token: String, binding: String) -> String {
        Base64URL.encode(SHA2.sha256(Array((token + "." + binding).utf8)))
    }
}

extension SessionStore {
    /// Stores `link` of `method` (its config name) for `app`.
    /// - Returns: the handle the confirmation page's URL names.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    func startWebSignInLink(_ link: WebSignInLinkFlow, method: String, app: String) async throws -> String {
        try await storeFlow(link, purpose: .webSignInLink, method: method, app: app, created: link.created, lifetime: WebSignInLinkFlow.lifetime)
    }

    /// The live (unused, unexpired) link `handle` names, read without spending it (the page), with
    /// its token, app and method; `nil` for anything else.
    /// - Throws: `store_unavailable`.
    func webSignInLink(handle: String, apps: Set<String>, at time: Int64) async throws
        -> (token: String, app: String, method: String, link: WebSignInLinkFlow)?
    {
        guard let (token, app) = OIDCFlowHandle.parse(handle), apps.contains(app) else { return nil }
        let live = try await liveRecord(
            WebSignInLinkFlow.self, token: token, purpose: .webSignInLink, app: app, at: time, accept: { $0.version == WebSignInLinkFlow.version })
        return live.map { (token, app, $0.subject, $0.record) }
    }

    /// Spends the link `token` of `app` (the page's button): `true` for the one call that did.
    /// - Throws: `store_unavailable`.
    func spendWebSignInLink(token: String, app: String, at time: Int64) async throws -> Bool {
        try await spendRecord(token: token, purpose: .webSignInLink, app: app, at: time)
    }
}
