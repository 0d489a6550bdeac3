package import Sessions

/// What a checked authorization request comes to for the browser that sent it (OIDC Core
/// §3.1.2.3–§3.1.2.6): decided from the request, the browser's live OP session and the user's
/// second factors and consents, then rendered by the authorization route. The facts that need a
/// store read are asked for only when the decision gets to them.
package enum AuthorizationDecision: Sendable, Equatable {
    /// An error sent to the client's redirect URI: its `error` and description.
    case error(String, String)
    /// The login page of a new flow: nobody is signed in, or not as the request needs (`prompt=login`,
    /// `max_age`, another user than the `id_token_hint`'s).
    case signIn
    /// The login page of a new flow, which asks for the second factor alone: a step-up
    /// (`acr_values` asks for it) or a factor turned on since this browser signed in.
    case secondFactor
    /// The consent page of a new flow.
    case consent
    /// A code at once, from this OP session.
    case code(OPSession)

    /// The decision for `request` with the browser's live OP `session` (its user present and
    /// enabled), `hintedSubject` the verified `id_token_hint`'s subject. `secondFactor` reads
    /// whether the session's user needs a second factor before a code and has one to give;
    /// `consent`, whether the user must allow the client first.
    /// - Throws: what the two reads throw (`store_unavailable`).
    package static func decide(
        _ request: OIDCAuthorizationRequest, session: OPSession?, hintedSubject: String?, at now: Int64,
        secondFactor: (OPSession) async throws -> (needed: Bool, available: Bool), consent: (OPSession) async throws -> Bool
    ) async throws -> AuthorizationDecision {
        let silent = request.prompt.contains(.none)
        guard let session, !request.prompt.contains(.login), !session.exceeds(maxAge: request.maxAge, at: now),
            hintedSubject == nil || hintedSubject == session.userID
        else {
            // §3.1.2.6: prompt=none never shows a page.
            return silent ? .error("login_required", "the user is not signed in") : .signIn
        }
        if !session.amr.contains("mfa"), case let need = try await secondFactor(session), need.needed {
            guard need.available else { return .error("unmet_authentication_requirements", "the user has no second factor") }
            return silent ? .error("interaction_required", "the second factor must be asked for") : .secondFactor
        }
        if try await consent(session) {
            return silent ? .error("consent_required", "the user has not allowed this client") : .consent
        }
        return .code(session)
    }
}
