import Foundation
import Hummingbird
import Identity
import JOSE
import Sessions
import OIDCProvider

/// The token endpoint's grants for OpenID Connect clients (docs/oidc.md): the authorization code
/// exchange and the refresh grant, each answering with an ID token when `openid` was granted.
extension AuthServer {
    /// `grant_type=authorization_code` for the authenticated client `client` (RFC 6749 §4.1.3,
    /// OIDC Core §3.1.3): the code redeemed (single use, bound to the client, the redirect URI and
    /// the PKCE challenge), a session created with the code's id and sign-in, and the tokens.
    /// A second use of a code is `invalid_grant` and ends the session the first use started.
    /// - Throws: ``OAuthError`` `invalid_request`, `invalid_grant`; `store_unavailable`.
    func oidcCodeGrant(_ form: OAuthForm, client: OIDCClientConfig) async throws -> Response {
        let code = try form.required("code", maxBytes: 256)
        let redirectURI = form.optional("redirect_uri")
        if let redirectURI, redirectURI.utf8.count > OIDCClientConfig.maxRedirectURILength {
            throw OAuthError.invalidRequest("the redirect_uri parameter is too long")
        }
        let verifier = form.optional("code_verifier")
        if let verifier, verifier.utf8.count > 256 { throw OAuthError.invalidRequest("the code_verifier parameter is too long") }
        let app = try self.app(client.app)
        let now = unixNow
        let (pair, redeemed, signIn): (TokenPair, OIDCAuthorizationCode, SessionSignIn)
        do {
            (pair, redeemed, signIn) = try await app.sessions.issueTokens(
                redeeming: code, clientID: client.id, app: client.app, redirectURI: redirectURI, verifier: verifier, at: now)
        } catch let reuse as OIDCCodeReuse {
            // RFC 6749 §4.1.2: the tokens the first use got stop working.
            try await service.revokeSession(id: reuse.first.sessionID, reason: "code_reuse")
            throw reuse.error
        } catch let e as TokenError where e.code == .userNotFound || e.code == .userDisabled {
            throw OAuthError.invalidGrant("the user of this code is gone or disabled")
        }
        return try await tokenResponse(pair, client: client, app: app, signIn: signIn, nonce: redeemed.binding.nonce)
    }

    /// The refresh grant for the OpenID Connect client `client`: only its own sessions' tokens,
    /// rotating for a public client always and for a confidential one as its app's
    /// `refresh_rotation` says; a new ID token (same `sub`, `auth_time`, `sid`; no `nonce`) when `openid` was granted.
    /// - Throws: ``OAuthError`` `invalid_grant`; Sessions' refusals (mapped by ``OAuthEndpoint``).
    func oidcRefreshGrant(_ token: String, client: OIDCClientConfig) async throws -> Response {
        let app = try self.app(client.app)
        let mode: RefreshMode = client.isPublic || app.config.refreshRotation ? .rotate : .keep
        let pair: TokenPair
        do {
            pair = try await service.refresh(token) { sessionClient in
                sessionClient == client.id ? RefreshIssuer(app.sessions, mode: mode) : nil
            }
        } catch let e as TokenError where e.code == .invalidGrant {
            throw OAuthError.invalidGrant("the refresh token was issued to another client")
        }
        guard let signIn = try await service.session(id: pair.sessionID)?.signIn, signIn.opSessionID != nil else {
            throw OAuthError.invalidGrant("the refresh token is not one of an OpenID Connect sign-in")
        }
        return try await tokenResponse(pair, client: client, app: app, signIn: signIn, nonce: nil)
    }

    /// The token response (``TokenResponse``) with `scope`, and `id_token` when `openid` was granted.
    private func tokenResponse(_ pair: TokenPair, client: OIDCClientConfig, app: AppRuntime, signIn: SessionSignIn, nonce: String?)
        async throws -> Response
    {
        var idToken: String?
        if signIn.scopes.contains("openid") {
            let now = unixNow
            let content = IDTokenContent(
                issuer: config.issuer, subject: pair.userID, clientID: client.id, issuedAt: now, expiresAt: now + app.config.accessTokenTTL,
                authTime: signIn.authTime, nonce: nonce, accessToken: pair.accessToken, algorithm: client.idTokenAlgorithm,
                sessionID: signIn.opSessionID ?? pair.sessionID, amr: signIn.amr, scopes: signIn.scopes,
                user: try await userClaims(userID: pair.userID))
            let signer = try await service.keyRing.idTokenSigner(algorithm: client.idTokenAlgorithm)
            idToken = try signer.sign(OIDCClaims.idToken(content))
        }
        return TokenResponse.make(pair, scopes: signIn.scopes, idToken: idToken)
    }

    /// The server's clock, in Unix seconds.
    var unixNow: Int64 { Int64(service.configuration.clock.now().timeIntervalSince1970.rounded(.down)) }

    /// What the `profile` and `email` scopes may reveal of `userID`: the profile claims of its
    /// identities (oldest first, the first that has each claim), and the email of its
    /// email/password account (verified once confirmed), else of an identity as its provider vouched.
    func userClaims(userID: String) async throws -> OIDCUserClaims {
        let (identities, account) = try await store.claimSources(userID: userID)
        var claims = OIDCUserClaims()
        for record in identities {
            if let json = record.profileJSON, let identity = try? JSONDecoder().decode(Identity.self, from: Data(json.utf8)) {
                claims.name = claims.name ?? identity.name
                claims.givenName = claims.givenName ?? identity.givenName
                claims.familyName = claims.familyName ?? identity.familyName
                if claims.picture == nil, let picture = identity.picture, picture.lowercased().hasPrefix("https://") { claims.picture = picture }
            }
            if claims.email == nil, let email = record.email {
                claims.email = email
                claims.emailVerified = record.emailVerified
            }
        }
        if let account {
            claims.email = account.email
            claims.emailVerified = account.confirmedAt != nil
        }
        return claims
    }
}
