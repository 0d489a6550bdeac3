import Foundation
import JOSE
public import Sessions

extension OneTimeTokenPurpose {
    /// A hosted login's flow record (``OIDCLoginFlow``): 10 minutes, single-use.
    public static let loginFlow = OneTimeTokenPurpose(rawValue: "login_flow")
    /// An authorization code (``OIDCAuthorizationCode``): 60 seconds, single-use.
    public static let authorizationCode = OneTimeTokenPurpose(rawValue: "authorization_code")
}

/// What an authorization code is bound to, carried from the checked request through its flow
/// into the code: the client, the redirect URI, the scopes, the `nonce` and the PKCE challenge.
public struct OIDCCodeBinding: Codable, Sendable, Hashable {
    public var clientID: String
    /// The redirect URI as requested (a loopback one with its own port).
    public var redirectURI: String
    /// The token request must then send the same `redirect_uri`.
    public var redirectURIWasSent: Bool
    public var scopes: [String]
    public var nonce: String?
    public var codeChallenge: String?

    package enum CodingKeys: String, CodingKey {
        case clientID = "client", redirectURI = "redirect_uri", redirectURIWasSent = "redirect_uri_sent", scopes = "scope", nonce,
            codeChallenge = "code_challenge"
    }

    public init(_ request: OIDCAuthorizationRequest) {
        clientID = request.client.id
        redirectURI = request.redirectURI
        redirectURIWasSent = request.redirectURIWasSent
        scopes = request.scopes
        nonce = request.nonce
        codeChallenge = request.codeChallenge
    }

    /// Why a token request may not redeem a code of this binding, or `nil` when it may (RFC 6749
    /// §4.1.3, RFC 7636 §4.6): `invalid_grant` when the code was issued to another client; when
    /// `redirect_uri` was sent in the authorization request and is missing or different here (or
    /// is sent here and differs from the one the code was issued for); when a challenge was sent
    /// and the verifier is missing or does not match it; and when a verifier comes for a code
    /// issued without a challenge (OAuth 2.1 §4.1.3: a PKCE downgrade).
    package func redemptionProblem(clientID: String, redirectURI: String?, verifier: String?) -> OAuthError? {
        guard clientID == self.clientID else { return .invalidGrant("the code was issued to another client") }
        if redirectURIWasSent, redirectURI == nil { return .invalidGrant("redirect_uri is required: the authorization request sent one") }
        if let redirectURI, redirectURI != self.redirectURI {
            return .invalidGrant("redirect_uri differs from the authorization request's")
        }
        switch (codeChallenge, verifier) {
        case (let challenge?, let verifier?):
            return PKCE.verify(verifier: verifier, challenge: challenge) ? nil : .invalidGrant("the code_verifier does not match the code_challenge")
        case (_?, nil): return .invalidGrant("code_verifier is required: the authorization request sent a code_challenge")
        case (nil, _?): return .invalidGrant("code_verifier sent, but the authorization request had no code_challenge")
        case (nil, nil): return nil
        }
    }
}

/// The state of an authorization request waiting for a person (the login or consent page), kept
/// server-side as the payload of a `login_flow` one-time token and named by ``OIDCFlowHandle``
/// in the page's URL. Versioned JSON: a record of another ``version`` is not resumed.
public struct OIDCLoginFlow: Codable, Sendable, Hashable {
    /// The payload's format; a record of another version is treated as unknown.
    public static let version = 1
    /// How long a flow lives (docs/oidc.md: 10 minutes).
    public static let lifetime: Int64 = 600

    public var version: Int
    /// What the code will be bound to.
    public var binding: OIDCCodeBinding
    public var state: String?
    /// ``OIDCAuthorizationRequest/Prompt`` raw values, sorted.
    public var prompt: [String]
    public var maxAge: Int64?
    public var loginHint: String?
    /// The `sub` of a verified `id_token_hint`: whoever signs in must be that user.
    public var hintedSubject: String?
    /// `acr_values` (absent from flows stored before it was kept: none).
    public var acrValues: [String]?
    /// The forms' CSRF token (``OIDCCSRF``).
    public var csrf: String
    /// When the flow started (Unix seconds).
    public var created: Int64
    /// ``FlowBinding/digest(_:)`` of the browser's binding value: only that browser's posts count.
    /// `nil` in flows stored before flows were bound.
    public var browser: String?

    public var clientID: String { binding.clientID }

    package enum CodingKeys: String, CodingKey {
        case version = "v", binding = "request", state, prompt, maxAge = "max_age", loginHint = "login_hint", hintedSubject = "hinted_sub",
            acrValues = "acr_values", csrf, created, browser
    }

    /// The flow of a checked request, with a new CSRF token, bound to the browser whose binding
    /// value has the digest `browser`.
    /// - Throws: `internal_error` if the random generator fails.
    public init(_ request: OIDCAuthorizationRequest, hintedSubject: String? = nil, created: Int64, browser: String? = nil) throws {
        self.browser = browser
        version = Self.version
        binding = OIDCCodeBinding(request)
        state = request.state
        prompt = request.prompt.map(\.rawValue).sorted()
        maxAge = request.maxAge
        loginHint = request.loginHint
        self.hintedSubject = hintedSubject
        acrValues = request.acrValues.isEmpty ? nil : request.acrValues
        csrf = try OIDCCSRF.make()
        self.created = created
    }

    /// The request to resume, with the client as configured now; `nil` when the client is gone
    /// or no longer has the redirect URI (the config changed while the page was open).
    public func request(clients: [String: OIDCClientConfig]) -> OIDCAuthorizationRequest? {
        guard let client = clients[clientID], OIDCRedirectURI.match(binding.redirectURI, in: client.redirectURIs) != nil else { return nil }
        return OIDCAuthorizationRequest(
            client: client, redirectURI: binding.redirectURI, redirectURIWasSent: binding.redirectURIWasSent, scopes: binding.scopes,
            state: state, nonce: binding.nonce, codeChallenge: binding.codeChallenge,
            prompt: Set(prompt.compactMap(OIDCAuthorizationRequest.Prompt.init(rawValue:))), maxAge: maxAge, loginHint: loginHint,
            idTokenHint: nil, acrValues: acrValues ?? [])
    }
}

/// What an authorization code stands for, kept as the payload of an `authorization_code`
/// one-time token (subject: the user) and checked when it is redeemed
/// (``OIDCCodeBinding/redemptionProblem(clientID:redirectURI:verifier:)``).
public struct OIDCAuthorizationCode: Codable, Sendable, Hashable {
    public static let version = 1
    /// How long a code lives (docs/oidc.md: 60 s).
    public static let lifetime: Int64 = 60

    public var version: Int
    /// Client, redirect URI, scopes, `nonce` and PKCE challenge of the request.
    public var binding: OIDCCodeBinding
    public var userID: String
    public var authTime: Int64
    /// RFC 8176 methods of the sign-in (``Authentication/methods`` made `amr`).
    public var amr: [String]
    /// The OP session's `sid`.
    public var opSessionID: String
    /// The id the redemption's session is to have, chosen with the code: a second use of the code
    /// ends that session, and the tokens the first use was given stop working.
    public var sessionID: String
    public var created: Int64

    package enum CodingKeys: String, CodingKey {
        case version = "v", binding = "request", userID = "user", authTime = "auth_time", amr, opSessionID = "sid", sessionID = "session", created
    }

    /// The code of a flow (``OIDCLoginFlow``) its user finished, with a new session id.
    /// - Throws: `internal_error` if the random generator fails.
    public init(_ flow: OIDCLoginFlow, userID: String, authTime: Int64, amr: [String], opSessionID: String, created: Int64) throws {
        version = Self.version
        binding = flow.binding
        self.userID = userID
        self.authTime = authTime
        self.amr = amr
        self.opSessionID = opSessionID
        sessionID = try RandomID.make()
        self.created = created
    }
}

/// The handle of a login flow in a page's URL: the flow's one-time token, a dot, and the client
/// id (which names the app whose store entry the token is): `TOKEN.CLIENT`.
public enum OIDCFlowHandle {
    /// `token.clientID`.
    public static func make(token: String, clientID: String) -> String { token + "." + clientID }

    /// The token and client id of `handle`; `nil` unless it is a 43-character token, a dot and a
    /// client id of 1…64 characters.
    public static func parse(_ handle: String) -> (token: String, clientID: String)? {
        let utf8 = Array(handle.utf8)
        guard utf8.count > 44, utf8.count <= 44 + 64, utf8[43] == UInt8(ascii: ".") else { return nil }
        let token = String(decoding: utf8[..<43], as: UTF8.self), clientID = String(decoding: utf8[44...], as: UTF8.self)
        guard PKCE.isValidChallenge(token), ConfigID.isValid(clientID) else { return nil }
        return (token, clientID)
    }
}
