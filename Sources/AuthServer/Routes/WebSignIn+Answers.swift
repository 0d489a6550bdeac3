import Foundation
import Hummingbird
import JOSE
import NIOCore
import Sessions
import OIDCProvider

/// Where the App Services redirect flow sends the browser back: the app's registered redirect
/// URL with the outcome in the fragment, as realm-web's `handleAuthRedirect` reads it (the
/// fragment never reaches a server, not even the app's).
enum WebSignInAnswerLocation {
    /// `URL#_baas_client_app_id=APP&_baas_ua=ACCESS$REFRESH$USERID$DEVICEID&_baas_state=S`.
    static func success(app: String, tokens: TokenPair, deviceID: String, redirect: String, state: String) -> String {
        let ua = [tokens.accessToken, tokens.refreshToken, tokens.userID, deviceID].joined(separator: "$")
        return fragment([("_baas_client_app_id", app), ("_baas_ua", ua), ("_baas_state", state)], on: redirect)
    }

    /// A link's end: `URL#_baas_client_app_id=APP&_baas_link=ok&_baas_ua=ACCESS$$USERID$DEVICEID&_baas_state=S`.
    /// `_baas_ua` carries the fresh access token and no refresh token (the session's own is
    /// unchanged): realm-web's `linkCredentials` decodes four `$`-separated parts and checks the
    /// user id, as after a POST link.
    static func linked(app: String, accessToken: String, userID: String, deviceID: String, redirect: String, state: String) -> String {
        let ua = [accessToken, "", userID, deviceID].joined(separator: "$")
        return fragment([("_baas_client_app_id", app), ("_baas_link", "ok"), ("_baas_ua", ua), ("_baas_state", state)], on: redirect)
    }

    /// `URL#_baas_error=MESSAGE&_baas_state=S`.
    static func error(_ message: String, redirect: String, state: String) -> String {
        fragment([("_baas_error", message), ("_baas_state", state)], on: redirect)
    }

    /// `redirect#name=value&…`, each value percent-encoded but for RFC 3986's unreserved characters.
    private static func fragment(_ parameters: [(String, String)], on redirect: String) -> String {
        // The same encoding as a query's: the parameters as one, its "?" made the "#".
        redirect + "#" + OIDCAuthorizationError.append(parameters.map { ($0.0, $0.1) }, to: "").dropFirst()
    }
}

extension WebSignInRoutes {
    /// A `302` to `location`, stored nowhere and sent with no referrer.
    static func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        if let name = HTTPFields.Element.Name("Referrer-Policy") { headers[name] = "no-referrer" }
        return Response(status: .found, headers: headers)
    }

    /// The 400 page of a sign-in that cannot go back to its caller (the hosted pages' error page).
    static func errorPage(_ message: String, app: String?) -> Response {
        var headers = HTTPFields()
        for (name, value) in OIDCPages.headers(redirectURI: nil) { if let n = HTTPFields.Element.Name(name) { headers[n] = value } }
        let html = OIDCPages.render(.error(message: message), app: app ?? "Sign in")
        return Response(status: .badRequest, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// What `#_baas_error` says of a refusal: readable, and never a secret (the provider's words
    /// are bounded printable text, checked for our secrets by the provider's code).
    static func message(_ e: TokenError) -> String {
        switch e.code {
        case .providerUnavailable, .storeUnavailable, .serverBusy: "The sign-in service is unavailable; try again later."
        case .userDisabled: "This user is disabled."
        case .identityInUse: "This account is already linked to another user (AccountNameInUse)."
        case .invalidSession, .sessionRevoked: "The session that asked for this has ended; sign in to the app again."
        case .providerNotFound, .authFailed, .invalidParameter: WebSignInAnswer.printable(e.message, 200)
        default: "The sign-in was refused (\(e.code.rawValue))."
        }
    }

    /// realm-web's `device` parameter: base64 (URL-safe or not, padded or not) of a JSON object.
    /// - Throws: `invalid_parameter` for anything else.
    static func device(_ text: String?) throws -> JSONValue? {
        guard let text, !text.isEmpty else { return nil }
        var b64 = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while b64.hasSuffix("=") { b64.removeLast() }
        guard b64.utf8.count <= maxDevice, let bytes = try? Base64URL.decode(b64, what: "device"),
            let value = try? JSONValue(
                parsing: String(decoding: bytes, as: UTF8.self), limits: JSONLimits(maxBytes: maxDevice, maxDepth: 4, maxTopLevelMembers: 16)),
            value.objectValue != nil
        else { throw TokenError(.invalidParameter, "\"device\" must be base64 of a JSON object") }
        return value
    }

    /// A login body carrying `device` as `options.device`, for ``Device``.
    static func loginBody(device: JSONValue?) -> RequestJSON {
        RequestJSON(object: device.map { ["options": .object(["device": $0])] } ?? [:])
    }
}
