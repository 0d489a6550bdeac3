extension OIDCAuthorizationRequest {
    /// Bounds on the values echoed or kept: longer is `invalid_request`.
    package static let maxStateLength = 1024
    package static let maxHintLength = 8192

    /// Checks an authorization request's parameters (the query of a GET, or the form of a POST),
    /// in the order RFC 6749 §4.1.2.1 requires: the client and its redirect URI first, whose
    /// faults are shown on the error page and never redirected to; then the rest, whose faults
    /// are sent to the redirect URI with `state` and `iss`. `display`, `ui_locales`,
    /// `claims_locales`, `claims` and unknown parameters are ignored; scopes the client may not
    /// have, or the server does not know, are dropped.
    /// - Parameters:
    ///   - parameters: name-value pairs as received, repeats kept (RFC 6749 §3.1: a parameter
    ///     sent twice is an error).
    ///   - clients: the OpenID Connect clients by id.
    ///   - issuer: the `iss` of error redirects (RFC 9207).
    public static func parse(_ parameters: [(name: String, value: String)], clients: [String: OIDCClientConfig], issuer: String)
        -> OIDCAuthorizationOutcome
    {
        var values: [String: [String]] = [:]
        for (name, value) in parameters where !value.isEmpty { values[name, default: []].append(value) }
        func one(_ name: String) -> String? { values[name]?.count == 1 ? values[name]?.first : nil }

        guard values["client_id"]?.count == 1, let clientID = one("client_id") else {
            return .errorPage(values["client_id"] == nil ? "The request names no client (client_id)." : "client_id is repeated.")
        }
        guard let client = clients[clientID] else { return .errorPage("The client is not known to this server.") }
        let redirectURI: String
        switch values["redirect_uri"]?.count ?? 0 {
        case 0:
            guard client.redirectURIs.count == 1 else {
                return .errorPage("The request names no redirect_uri, and the client has several.")
            }
            redirectURI = client.redirectURIs[0]
        case 1:
            guard let sent = one("redirect_uri"), OIDCRedirectURI.match(sent, in: client.redirectURIs) != nil else {
                return .errorPage("The redirect_uri is not registered for this client.")
            }
            redirectURI = sent
        default:
            return .errorPage("redirect_uri is repeated.")
        }

        let state = one("state").flatMap { $0.utf8.count <= maxStateLength ? $0 : nil }
        func refuse(_ error: String, _ description: String) -> OIDCAuthorizationOutcome {
            .redirect(OIDCAuthorizationError(redirectURI: redirectURI, error: error, description: description, state: state, issuer: issuer))
        }
        // OIDC Core §6: request objects are not supported (discovery says so); §3.1.2.6 names the errors.
        if values["request"] != nil { return refuse("request_not_supported", "request objects are not supported") }
        if values["request_uri"] != nil { return refuse("request_uri_not_supported", "request_uri is not supported") }
        if values["registration"] != nil { return refuse("registration_not_supported", "the registration parameter is not supported") }
        if let repeated = values.first(where: { $0.value.count > 1 })?.key {
            return refuse("invalid_request", "\(repeated.prefix(40)) is repeated")
        }
        if let s = values["state"]?.first, s.utf8.count > maxStateLength {
            return refuse("invalid_request", "state is longer than \(maxStateLength) bytes")
        }

        guard let responseType = one("response_type") else { return refuse("invalid_request", "response_type is missing") }
        guard responseType == "code" else { return refuse("unsupported_response_type", "only response_type=code is supported") }
        if let mode = one("response_mode"), mode != "query" {
            return refuse("invalid_request", "only response_mode=query is supported")
        }

        // RFC 7636 §4.3: a challenge without a method is `plain`, which is refused like an explicit one.
        let challenge = one("code_challenge")
        let method = one("code_challenge_method")
        if let method, method != "S256" { return refuse("invalid_request", "code_challenge_method must be S256") }
        if challenge != nil, method == nil { return refuse("invalid_request", "code_challenge_method must be S256 (plain is refused)") }
        if challenge == nil, method != nil { return refuse("invalid_request", "code_challenge is missing") }
        if let challenge, !PKCE.isValidChallenge(challenge) {
            return refuse("invalid_request", "code_challenge must be 43 base64url characters (S256)")
        }
        if client.requirePKCE, challenge == nil {
            return refuse("invalid_request", "this client must send PKCE: code_challenge with code_challenge_method=S256")
        }

        var prompt: Set<Prompt> = []
        for word in (one("prompt") ?? "").split(separator: " ") {
            // OIDC Core §3.1.2.1: select_account asks to pick among accounts; a browser holds one here.
            if word == "select_account" { continue }
            guard let p = Prompt(rawValue: String(word)) else { return refuse("invalid_request", "unknown prompt value") }
            prompt.insert(p)
        }
        if prompt.contains(.none), prompt.count > 1 { return refuse("invalid_request", "prompt=none cannot be combined with other values") }

        var maxAge: Int64?
        if let text = one("max_age") {
            guard text.utf8.count <= 10, text.utf8.allSatisfy({ (48...57).contains($0) }), let v = Int64(text) else {
                return refuse("invalid_request", "max_age must be a number of seconds")
            }
            maxAge = v
        }
        for name in ["nonce", "login_hint", "acr_values"] where (one(name)?.utf8.count ?? 0) > maxStateLength {
            return refuse("invalid_request", "\(name) is longer than \(maxStateLength) bytes")
        }
        if (one("id_token_hint")?.utf8.count ?? 0) > maxHintLength {
            return refuse("invalid_request", "id_token_hint is longer than \(maxHintLength) bytes")
        }

        var scopes: [String] = []
        for word in (one("scope") ?? "").split(separator: " ").map(String.init)
        where client.scopes.contains(word) && OIDCClientConfig.knownScopes.contains(word) && !scopes.contains(word) {
            scopes.append(word)
        }
        return .valid(
            OIDCAuthorizationRequest(
                client: client, redirectURI: redirectURI, redirectURIWasSent: values["redirect_uri"] != nil, scopes: scopes, state: state,
                nonce: one("nonce"), codeChallenge: challenge, prompt: prompt, maxAge: maxAge, loginHint: one("login_hint"),
                idTokenHint: one("id_token_hint"), acrValues: (one("acr_values") ?? "").split(separator: " ").map(String.init)))
    }
}
