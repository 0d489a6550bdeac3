import Identity
public import JOSE
import Sessions

extension TokenError.Code {
    /// The request is not JSON, has the wrong JSON type, or has an unknown shape (400 `BadRequest`).
    public static let badRequest = TokenError.Code("bad_request", .rejected)
    /// A required request member is absent (400 `MissingParameter`); the message names it.
    public static let missingParameter = TokenError.Code("missing_parameter", .rejected)
    /// A request member has a bad value (400 `InvalidParameter`); the message names it.
    public static let invalidParameter = TokenError.Code("invalid_parameter", .rejected)
    /// The bearer token is bad, expired, revoked, of the wrong kind or of another app (401 `InvalidSession`).
    public static let invalidSession = TokenError.Code("invalid_session", .rejected)
    /// The credential of a login was refused (401 `AuthError`).
    public static let authFailed = TokenError.Code("auth_failed", .rejected)
    /// The path names an app the server does not serve (404 `AppNotFound`).
    public static let appNotFound = TokenError.Code("app_not_found", .rejected)
    /// The path names a provider the app has not enabled (404 `AuthProviderNotFound`).
    public static let providerNotFound = TokenError.Code("provider_not_found", .rejected)
    /// No route has this path (404 `NotFound`).
    public static let notFound = TokenError.Code("not_found", .rejected)
    /// A route has this path but not this method (405 `MethodNotAllowed`).
    public static let methodNotAllowed = TokenError.Code("method_not_allowed", .rejected)
    /// The request body is over 64 KiB (413 `RequestTooLarge`).
    public static let requestTooLarge = TokenError.Code("request_too_large", .rejected)
    /// A JSON route's body sent as a type a browser may post cross-site without a preflight
    /// (`text/plain`, form-encoded, multipart): 415 `BadRequest`, before the body is read.
    public static let unsupportedMediaType = TokenError.Code("unsupported_media_type", .rejected)
    /// The request body did not arrive within `body_timeout` (408 `RequestTimeout`); the connection is closed.
    public static let requestTimeout = TokenError.Code("request_timeout", .rejected)
    /// `confirm/call` or `reset/call` of an app without a `custom-function` provider, whose URL
    /// and secret they use (400 `BadRequest`).
    public static let functionNotConfigured = TokenError.Code("function_not_configured", .rejected)
    /// An enrolment change of a second factor with a session whose sign-in is older than 10
    /// minutes (401 `ReauthenticationRequired`): sign in again, then retry.
    public static let reauthenticationRequired = TokenError.Code("reauthentication_required", .rejected)
    /// The email and password were right, but the user has a second factor: the answer carries
    /// an `mfa_token` for `…/local-userpass/mfa` (401 `MFARequired`).
    public static let mfaRequired = TokenError.Code("mfa_required", .rejected)
    /// The server is handling `max_in_flight` requests already (503 `ServiceUnavailable`, `Retry-After: 1`).
    public static let serverBusy = TokenError.Code("server_busy", .infrastructure)

    /// Every code the AuthServer module mints.
    public static let authServerCodes: [TokenError.Code] = [
        .badRequest, .missingParameter, .invalidParameter, .invalidSession, .authFailed, .appNotFound,
        .providerNotFound, .notFound, .methodNotAllowed, .requestTooLarge, .unsupportedMediaType, .requestTimeout, .functionNotConfigured, .serverBusy,
        .reauthenticationRequired, .mfaRequired,
    ]  // `too_many_requests` is the Sessions module's (its throttle and password hasher mint it)
}

/// How an error is answered on the App Services routes: the status, the `error_code` name.
struct ErrorMapping: Sendable, Hashable {
    var status: Int
    var name: String

    /// The status and `error_code` table of docs/errors.md ("Server codes"), keyed by code.
    static let byCode: [String: ErrorMapping] = {
        var t: [String: ErrorMapping] = [:]
        func put(_ codes: [TokenError.Code], _ status: Int, _ name: String) {
            for c in codes { t[c.rawValue] = ErrorMapping(status: status, name: name) }
        }
        put([.badRequest, .malformed, .functionNotConfigured, .malformedCBOR, .webAuthnMalformed], 400, "BadRequest")
        put([.missingParameter], 400, "MissingParameter")
        put([.invalidParameter, .invalidInput, .invalidEmail, .invalidMFACode], 400, "InvalidParameter")
        put([.invalidPassword], 400, "InvalidPassword")
        put([.userpassTokenInvalid], 400, "UserpassTokenInvalid")
        put(
            [.invalidSession, .sessionRevoked, .refreshTokenReused, .refreshTokenRevoked, .refreshTokenExpired, .invalidRefreshToken],
            401, "InvalidSession")
        put([.authFailed, .loginFailed, .emailNotConfirmed, .customFunctionRefused], 401, "AuthError")
        put([.reauthenticationRequired], 401, "ReauthenticationRequired")
        put([.mfaRequired], 401, "MFARequired")
        put([.userDisabled], 403, "UserDisabled")
        put([.appNotFound], 404, "AppNotFound")
        put([.providerNotFound], 404, "AuthProviderNotFound")
        put([.userNotFound], 404, "UserNotFound")
        put([.apiKeyNotFound], 404, "APIKeyNotFound")
        put([.notFound], 404, "NotFound")
        put([.methodNotAllowed], 405, "MethodNotAllowed")
        put([.identityInUse], 409, "AccountNameInUse")
        put([.apiKeyExists], 409, "APIKeyAlreadyExists")
        put([.requestTimeout], 408, "RequestTimeout")
        put([.requestTooLarge], 413, "RequestTooLarge")
        put([.unsupportedMediaType], 415, "BadRequest")
        put([.tooManyRequests], 429, "TooManyRequests")
        put([.customFunctionFailed], 502, "FunctionExecutionError")
        put([.storeUnavailable, .providerUnavailable, .serverBusy], 503, "ServiceUnavailable")
        put([.internalError], 500, "InternalServerError")
        return t
    }()

    static let internalError = ErrorMapping(status: 500, name: "InternalServerError")

    /// The mapping of `code`; a code not in the table falls back on its class: a rejected
    /// credential is 401 `AuthError`, an infrastructure failure 503 `ServiceUnavailable`, a
    /// configuration error (the server's own) 500.
    static func of(_ code: TokenError.Code) -> ErrorMapping {
        if let m = byCode[code.rawValue] { return m }
        switch code.kind {
        case .rejected: return ErrorMapping(status: 401, name: "AuthError")
        case .infrastructure: return ErrorMapping(status: 503, name: "ServiceUnavailable")
        case .configuration: return internalError
        }
    }

    /// The mapping of an HTTP status Hummingbird raised itself (a body over the limit, a router miss).
    static func of(status: Int) -> ErrorMapping {
        switch status {
        case 404: ErrorMapping(status: 404, name: "NotFound")
        case 405: ErrorMapping(status: 405, name: "MethodNotAllowed")
        case 408: ErrorMapping(status: 408, name: "RequestTimeout")
        case 413: ErrorMapping(status: 413, name: "RequestTooLarge")
        case 400..<500: ErrorMapping(status: status, name: "BadRequest")
        default: internalError
        }
    }
}
