import Foundation
public import JOSE

/// What the stand-in's browser-facing pages do next, and what they saw.
public final class WebFlowState: @unchecked Sendable {
    /// How the next authorization page answers.
    public enum Answer: Sendable, Equatable {
        /// Signs the user in: a code back to `redirect_uri`.
        case approve
        /// The user said no: `error=access_denied` (Apple: `user_cancelled_authorize`).
        case deny
    }

    private let lock = NSLock()
    private var answer: Answer = .approve
    private var claimOverrides = ClaimSet()
    private var facebookCodes: [String: (token: String, redirectURI: String)] = [:]
    private var pages: [StandInRequest] = []
    private var counter = 0
    /// Apple's `user` JSON on a sign-in, as Apple sends it only on the first (nil: not sent).
    private var appleUser: String? = #"{"name":{"firstName":"Stand","lastName":"In"},"email":"standin@privaterelay.appleid.com"}"#

    public init() {}

    public func setAnswer(_ answer: Answer) { lock.withLock { self.answer = answer } }
    /// Claims the next id_tokens get over the defaults (`nonce` included: a wrong one).
    public func overrideClaims(_ claims: ClaimSet) { lock.withLock { claimOverrides = claims } }
    public func setAppleUser(_ json: String?) { lock.withLock { appleUser = json } }
    /// The authorization requests the pages saw, oldest first.
    public var authorizationRequests: [StandInRequest] { lock.withLock { pages } }

    func next(_ request: StandInRequest) -> (answer: Answer, overrides: ClaimSet, code: String, appleUser: String?) {
        lock.withLock {
            pages.append(request)
            counter += 1
            return (answer, claimOverrides, "standin-web-code-\(counter)-\(UUID().uuidString)", appleUser)
        }
    }

    func addFacebookCode(_ code: String, token: String, redirectURI: String) { lock.withLock { facebookCodes[code] = (token, redirectURI) } }
    func takeFacebookCode(_ code: String) -> (token: String, redirectURI: String)? {
        lock.withLock { facebookCodes.removeValue(forKey: code) }
    }
}

extension ProviderStandIn {
    /// The browser-facing endpoints: Google's authorization page (`/o/oauth2/v2/auth`), Apple's
    /// (`/auth/authorize`, answering by an HTML form that posts, as `form_post` does), Facebook's
    /// dialog (`/vNN.N/dialog/oauth`), and Graph's code exchange (`/vNN.N/oauth/access_token`).
    /// Each page answers at once as ``WebFlowState/setAnswer(_:)`` says (no person to click).
    func webFlow(_ request: StandInRequest, path: String) -> StandInResponse? {
        let q = request.query
        switch (request.method, path) {
        case ("GET", "/o/oauth2/v2/auth"):
            guard q["client_id"] == settings.googleClientID, q["response_type"] == "code", let redirect = q["redirect_uri"] else {
                return .json(#"{"error":"invalid_request"}"#, status: 400)
            }
            let step = web.next(request)
            guard step.answer == .approve else { return Self.back(to: redirect, ["error": "access_denied", "state": q["state"]]) }
            var claims: ClaimSet = ["nonce": q["nonce"].map(JSONValue.string) ?? .null]
            for (k, v) in step.overrides.object { claims[k] = v }
            let challenge = q["code_challenge_method"] == "S256" ? q["code_challenge"] : nil
            registerGoogleCode(step.code, claims: claims, redirectURI: redirect, codeChallenge: challenge)
            return Self.back(to: redirect, ["code": step.code, "state": q["state"]])
        case ("GET", "/auth/authorize"):
            guard q["client_id"] == settings.appleWebClientID, q["response_type"] == "code", q["response_mode"] == "form_post",
                let redirect = q["redirect_uri"]
            else { return .json(#"{"error":"invalid_request"}"#, status: 400) }
            let step = web.next(request)
            guard step.answer == .approve else { return Self.formPost(to: redirect, ["error": "user_cancelled_authorize", "state": q["state"]]) }
            var claims: ClaimSet = ["aud": .string(settings.appleWebClientID), "nonce": q["nonce"].map(JSONValue.string) ?? .null]
            for (k, v) in step.overrides.object { claims[k] = v }
            registerAppleCode(step.code, claims: claims, redirectURI: redirect)
            return Self.formPost(to: redirect, ["code": step.code, "state": q["state"], "user": step.appleUser])
        case ("GET", "/dialog/oauth"):
            guard q["client_id"] == settings.facebookAppID, let redirect = q["redirect_uri"] else {
                return .json(#"{"error":{"message":"Invalid App ID","code":101}}"#, status: 400)
            }
            let step = web.next(request)
            guard step.answer == .approve else {
                return Self.back(to: redirect, ["error": "access_denied", "error_reason": "user_denied", "state": q["state"]])
            }
            web.addFacebookCode(step.code, token: "standin-facebook-user-token", redirectURI: redirect)
            return Self.back(to: redirect, ["code": step.code, "state": q["state"]])
        case ("GET", "/oauth/access_token"):
            guard q["client_id"] == settings.facebookAppID, q["client_secret"] == settings.facebookAppSecret else {
                return .json(#"{"error":{"message":"Error validating client secret.","type":"OAuthException","code":1}}"#, status: 400)
            }
            guard let code = q["code"], let issued = web.takeFacebookCode(code), issued.redirectURI == q["redirect_uri"] else {
                return .json(#"{"error":{"message":"Invalid verification code format.","type":"OAuthException","code":100}}"#, status: 400)
            }
            return .json(JSONValue.object(["access_token": .string(issued.token), "token_type": "bearer", "expires_in": 5_183_944]).jsonString)
        default:
            return nil
        }
    }

    /// `302` to `redirect` with `fields` added to its query.
    static func back(to redirect: String, _ fields: [String: String?]) -> StandInResponse {
        var c = URLComponents(string: redirect)
        let kept = c?.queryItems ?? []
        c?.queryItems = kept + fields.sorted { $0.key < $1.key }.compactMap { k, v in v.map { URLQueryItem(name: k, value: $0) } }
        // URLComponents leaves "+" alone in a query; a form decoder reads it as a space.
        let location = (c?.string ?? redirect).replacingOccurrences(of: "+", with: "%2B")
        return StandInResponse(status: 302, headers: [("Location", location)])
    }

    /// Apple's `form_post` answer: a page whose form posts `fields` to `redirect`.
    static func formPost(to redirect: String, _ fields: [String: String?]) -> StandInResponse {
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
        }
        let inputs = fields.sorted { $0.key < $1.key }.compactMap { k, v in
            v.map { "<input type=\"hidden\" name=\"\(escape(k))\" value=\"\(escape($0))\">" }
        }.joined()
        let html =
            "<html><body onload=\"document.forms[0].submit()\"><form method=\"post\" action=\"\(escape(redirect))\">\(inputs)</form></body></html>"
        return StandInResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(html.utf8))
    }
}
