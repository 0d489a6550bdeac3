@testable import AuthServer
import Identity
import JOSE
import Sessions
import Testing

/// Every code of every module becomes a status and an App Services `error_code` of the server
/// contract's error table, and the names keep the statuses that table gives them.
@Suite struct ErrorMappingTests {
    /// The contract's error table: `error_code` → status.
    static let contract: [String: Int] = [
        "BadRequest": 400, "InvalidParameter": 400, "MissingParameter": 400, "InvalidPassword": 400,
        "UserpassTokenInvalid": 400, "InvalidSession": 401, "AuthError": 401, "UserDisabled": 403,
        "AppNotFound": 404, "AuthProviderNotFound": 404, "UserNotFound": 404, "APIKeyNotFound": 404, "NotFound": 404,
        "MethodNotAllowed": 405, "AccountNameInUse": 409, "APIKeyAlreadyExists": 409, "RequestTooLarge": 413,
        "TooManyRequests": 429, "FunctionExecutionError": 502, "ServiceUnavailable": 503, "InternalServerError": 500,
    ]

    static let allCodes: [TokenError.Code] =
        TokenError.Code.joseCodes + TokenError.Code.identityCodes
        + TokenError.Code.sessionsCodes + TokenError.Code.authServerCodes

    @Test(arguments: allCodes) func everyCodeHasAContractStatus(_ code: TokenError.Code) {
        let m = ErrorMapping.of(code)
        #expect(Self.contract[m.name] == m.status, "\(code) → \(m.status) \(m.name)")
    }

    @Test func classesDecideWhatTheTableDoesNotName() {
        #expect(ErrorMapping.of(.invalidNonce) == ErrorMapping(status: 401, name: "AuthError"))
        #expect(ErrorMapping.of(.customFunctionRefused) == ErrorMapping(status: 401, name: "AuthError"))
        #expect(ErrorMapping.of(.providerUnavailable) == ErrorMapping(status: 503, name: "ServiceUnavailable"))
        #expect(ErrorMapping.of(.invalidConfiguration) == ErrorMapping(status: 500, name: "InternalServerError"))
    }

    @Test func namedCodesKeepTheirContractRows() {
        #expect(ErrorMapping.of(.userDisabled) == ErrorMapping(status: 403, name: "UserDisabled"))
        #expect(ErrorMapping.of(.identityInUse) == ErrorMapping(status: 409, name: "AccountNameInUse"))
        #expect(ErrorMapping.of(.sessionRevoked) == ErrorMapping(status: 401, name: "InvalidSession"))
        #expect(ErrorMapping.of(.customFunctionFailed) == ErrorMapping(status: 502, name: "FunctionExecutionError"))
        #expect(ErrorMapping.of(.storeUnavailable) == ErrorMapping(status: 503, name: "ServiceUnavailable"))
    }
}
