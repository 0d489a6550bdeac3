import Foundation
import Hummingbird
import JOSE
import Sessions
import OIDCProvider

/// `GET`/`POST /oauth/logout`: RP-initiated logout 1.0. With `id_token_hint`, `client_id`,
/// `post_logout_redirect_uri` and `state`: the browser's OP session (its cookie) ends, and every
/// session issued through it; then `302 post_logout_redirect_uri?state=…`, or the signed-out page.
/// A `post_logout_redirect_uri` not registered for the client (or without a known client), an
/// `id_token_hint` this server did not issue, or a `client_id` other than the hint's: the 400
/// error page, and nothing is ended. Without a valid `id_token_hint` of the browser's own user
/// (RP-initiated logout 1.0 §2: the request may come from anyone) a browser with an OP session
/// gets a confirmation page first, and only its same-origin post with the CSRF token ends anything.
struct OIDCLogoutRoutes: Sendable {
    let server: AuthServer

    /// Parameters read, each at most this long.
    static let maxParameterBytes = 8192

    func logout(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let params: [String: String]
        if request.method == .post {
            var request = request
            let buffer = (try? await request.collectBody(upTo: context.maxUploadSize)) ?? ByteBuffer()
            params = AccountPageRoutes.form(buffer)
        } else {
            var query: [String: String] = [:]
            for (name, value) in request.uri.queryParameters where query[String(name)] == nil { query[String(name)] = String(value) }
            params = query
        }
        guard params.values.allSatisfy({ $0.utf8.count <= Self.maxParameterBytes }) else { return page(.error(message: "A parameter is too long.")) }
        func param(_ name: String) -> String? { params[name].flatMap { $0.isEmpty ? nil : $0 } }

        var client: OIDCClientConfig?
        if let id = param("client_id") {
            guard let named = server.config.oidcClients[id] else { return page(.error(message: "The client is not known to this server.")) }
            client = named
        }
        var hintedUser: String?
        if let hint = param("id_token_hint") {
            guard let claims = await server.verifyIDTokenHint(hint), let audience = claims.audience.first,
                let hinted = server.config.oidcClients[audience]
            else {
                return page(.error(message: "The id_token_hint was not issued by this server."))
            }
            hintedUser = claims.subject
            if let client, client.id != hinted.id { return page(.error(message: "The client_id differs from the id_token_hint's client.")) }
            client = hinted
        }
        var target: String?
        if let uri = param("post_logout_redirect_uri") {
            // Compared exactly, string for string: the loopback port rule of redirect URIs (RFC 8252
            // §7.3, for native apps' authorization answers) does not apply to where a logout lands.
            guard let client, client.postLogoutRedirectURIs.contains(uri) else {
                return page(.error(message: "The post_logout_redirect_uri is not registered for this client."))
            }
            target = uri
        }

        // The OP session the browser's cookie names, in the client's app (or in each app without a client).
        let secure = OPSessionCookie.isSecure(publicURL: server.config.publicURL)
        let cookies = request.headers[values: .cookie]
        let now = server.unixNow
        let apps = client.map { [$0.app] } ?? server.config.apps.keys.sorted()
        let tokens = apps.compactMap { app in OPSessionCookie.token(in: cookies, app: app, secure: secure).map { (app, $0) } }
        // RP-initiated logout 1.0 §2: without an id_token_hint the request may come from anyone
        // (a cross-site link): the user confirms on a page of this server first. So does a hint
        // naming another user than the browser's: anyone can hold an ID token of their own.
        var hintNamesTheBrowsersUser = hintedUser != nil
        for (app, token) in tokens where hintNamesTheBrowsersUser {
            hintNamesTheBrowsersUser = try await server.store.opSession(token: token, app: app, at: now)?.userID == hintedUser
        }
        if !hintNamesTheBrowsersUser, !tokens.isEmpty {
            let csrf = Self.confirmationToken(tokens.map(\.1))
            let confirmed =
                request.method == .post && OIDCCSRF.matches(param(OIDCPages.csrfField), expected: csrf)
                && OIDCCSRF.isSameOriginPost(
                    origin: request.headers[.origin], secFetchSite: request.headers[HTTPFields.Element.Name("Sec-Fetch-Site")!],
                    publicURL: server.config.publicURL)
            if !confirmed {
                var fields: [String: String] = [:]
                for name in ["client_id", "post_logout_redirect_uri", "state"] { fields[name] = param(name) }
                return page(.confirmLogout(csrf: csrf, fields: fields), redirectURI: target)
            }
        }
        var headers = HTTPFields()
        for (app, token) in tokens {
            if let ended = try await server.store.endOPSession(token: token, app: app, at: now) {
                try await server.service.revokeSessions(opSessionID: ended.sessionID, reason: "logout")
            }
            headers.append(HTTPFields.Element(name: .setCookie, value: OPSessionCookie.clearCookie(app: app, secure: secure)))
        }
        if let client { context.app = client.app }
        guard let target else { return page(.signedOut, extra: headers) }
        var location = target
        if let state = param("state") {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            location += (target.contains("?") ? "&" : "?") + "state=" + (state.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        headers[HTTPFields.Element.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .found, headers: headers)
    }

    /// The confirmation form's CSRF token: a digest of the browser's OP session cookies, which a
    /// cross-site page can neither read nor compute.
    static func confirmationToken(_ cookieTokens: [String]) -> String {
        Base64URL.encode(SHA2.sha256(Array(("tokentool-logout-confirm\u{0}" + cookieTokens.joined(separator: "\u{0}")).utf8)))
    }

    /// `page` with the hosted pages' headers; `redirectURI`: where its form's answer may redirect.
    private func page(_ page: OIDCPages.Page, extra: HTTPFields = [:], redirectURI: String? = nil) -> Response {
        var headers = extra
        for (name, value) in OIDCPages.headers(redirectURI: redirectURI) { if let n = HTTPFields.Element.Name(name) { headers[n] = value } }
        let body = OIDCPages.render(page, app: "")
        return Response(
            status: HTTPResponse.Status(code: OIDCPages.status(of: page)), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

extension AuthServer {
    /// The claims of an ID token this server issued (`id_token_hint`, at the authorization and
    /// end-session endpoints): signed by one of its published keys, `typ` `JWT`, `iss` =
    /// `public_url` as configured, a `sub`, and `aud` containing `clientID` when one is given;
    /// an expired one counts (a hint is often old: OIDC Core §3.1.2.1, RP-initiated logout 1.0 §2).
    /// `nil` for any other token.
    func verifyIDTokenHint(_ token: String, clientID: String? = nil) async -> ClaimSet? {
        guard token.utf8.count <= OIDCLogoutRoutes.maxParameterBytes, let keys = try? await service.keyRing.jwks() else { return nil }
        var options = VerifierOptions(
            issuers: [config.issuer], requiredClaims: ["sub"], type: "JWT", leeway: TimeInterval(Int32.max), clock: service.configuration.clock)
        if let clientID { options.audiences = [clientID] }
        return try? JWTVerifier(keys: keys, options: options).verify(token).claims
    }
}
