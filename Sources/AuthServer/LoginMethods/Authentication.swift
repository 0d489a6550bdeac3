import Foundation
import Identity
import JOSE
import Sessions

/// Who signed in, by which methods and when: what a login proved, before any session exists.
/// A login makes one of its method's ``LoginProof``, and only then is a session issued from it
/// (``AuthServer/issueSession(_:app:device:)``), so that a further step (a second factor, a
/// consent page, an authorization code) can sit between the two and add to ``methods``.
struct Authentication: Sendable, Hashable {
    /// The user signed in (with `?link=true`: the bearer's user).
    var userID: String
    /// The identity the proof named, if it named one (not for an email/password account or an API key).
    var identity: Identity?
    /// The config names of the methods that proved it, in the order they did (`[UserpassLogin.name]`).
    var methods: [String]
    /// When the last of them proved it, by the app's injected clock.
    var time: Date
    /// `true` when this sign-in made the user (an identity's first sign-in).
    var createdUser = false
    /// A provider token to keep sealed beside ``identity`` once the session is issued.
    var providerToken: String?
    /// The API key signed in with: the session ends with the key.
    var apiKeyID: String?

    /// The session's record of this sign-in: its time as `auth_time` and its methods as `amr`.
    var signIn: SessionSignIn {
        SessionSignIn(opSessionID: nil, authTime: Int64(time.timeIntervalSince1970.rounded(.down)), amr: OPSession.amr(of: methods), scopes: [])
    }

    /// A sign-in by `method`: the proof's user, an identity's found or made.
    /// - Throws: `invalid_input`, `store_unavailable`.
    static func signIn(_ proof: LoginProof, method: String, sessions: SessionManager) async throws -> Authentication {
        switch proof {
        case .identity(let identity, let keep):
            let (user, created) = try await sessions.findOrCreateUser(for: identity)
            return Authentication(
                userID: user.id, identity: identity, methods: [method], time: sessions.configuration.clock.now(), createdUser: created,
                providerToken: keep)
        case .user(let userID):
            return Authentication(userID: userID, methods: [method], time: sessions.configuration.clock.now())
        case .apiKey(let userID, let keyID):
            return Authentication(userID: userID, methods: [method], time: sessions.configuration.clock.now(), apiKeyID: keyID)
        case .passkey(let userID, let verified):
            return Authentication(
                userID: userID, methods: [method] + (verified ? [PasskeyLogin.userVerifiedMethod] : []), time: sessions.configuration.clock.now())
        }
    }

    /// A link (`?link=true`) by `method`: the proof joins `userID`. An identity is linked here; an
    /// email/password account joined in its own login. A method without ``LoginCapabilities/link``
    /// (API keys) is refused.
    /// - Throws: `invalid_parameter` for a method that cannot link; `identity_in_use`, `user_not_found`.
    static func link(_ proof: LoginProof, method: any LoginMethod.Type, to userID: String, sessions: SessionManager) async throws
        -> Authentication
    {
        var linked = Authentication(userID: userID, methods: [method.name], time: sessions.configuration.clock.now())
        switch proof {
        case .identity(let identity, let keep) where method.capabilities.contains(.link):
            try await sessions.link(identity, to: userID)
            linked.identity = identity
            linked.providerToken = keep
        case .user where method.capabilities.contains(.link): break
        default: throw TokenError(.invalidParameter, "an \(method.name) credential cannot be linked")
        }
        return linked
    }
}

extension AuthServer {
    /// The one place a login's session is issued: a new session on `device` for the
    /// authentication's user (ending with its API key, if one signed in), then the provider token
    /// kept.
    /// - Throws: `user_disabled`, `user_not_found`, `store_unavailable`.
    func issueSession(_ authentication: Authentication, app: AppRuntime, device: Device) async throws -> TokenPair {
        let tokens = try await app.sessions.issueTokens(
            userID: authentication.userID, clientID: app.config.id, device: device.json, apiKeyID: authentication.apiKeyID,
            signIn: authentication.signIn)
        try await keepProviderToken(of: authentication, app: app)
        return tokens
    }

    /// A link's answer: the bearer's session goes on (its refresh token unchanged) with a fresh
    /// access token, once the provider token is kept.
    func continueSession(_ session: AuthenticatedSession, after authentication: Authentication, app: AppRuntime) async throws -> String {
        try await keepProviderToken(of: authentication, app: app)
        return try await app.sessions.accessToken(forSession: session.sessionID, userID: session.userID)
    }

    /// Keeps the provider token of `authentication` (Apple's refresh token), if it has one, so
    /// that deleting the user revokes it.
    func keepProviderToken(of authentication: Authentication, app: AppRuntime) async throws {
        guard let token = authentication.providerToken, let identity = authentication.identity else { return }
        try await app.sessions.keepProviderToken(token, provider: identity.provider, subject: identity.subject)
    }
}
