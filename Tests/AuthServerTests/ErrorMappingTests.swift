@testable import AuthServer
import CLIHarness
import Foundation
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
        "UserpassTokenInvalid": 400, "InvalidSession": 401, "AuthError": 401, "ReauthenticationRequired": 401, "MFARequired": 401,
        "UserDisabled": 403,
        "AppNotFound": 404, "AuthProviderNotFound": 404, "UserNotFound": 404, "APIKeyNotFound": 404, "NotFound": 404,
        "MethodNotAllowed": 405, "RequestTimeout": 408, "AccountNameInUse": 409, "APIKeyAlreadyExists": 409, "RequestTooLarge": 413,
        "TooManyRequests": 429, "FunctionExecutionError": 502, "ServiceUnavailable": 503, "InternalServerError": 500,
    ]

    static let allCodes: [TokenError.Code] =
        TokenError.Code.joseCodes + TokenError.Code.identityCodes
        + TokenError.Code.sessionsCodes + TokenError.Code.authServerCodes

    @Test(arguments: allCodes) func everyCodeHasAContractStatus(_ code: TokenError.Code) {
        let m = ErrorMapping.of(code)
        // The contract's "Browsers on other origins" (docs/server.md): a body of a cross-site type is 415 `BadRequest`.
        if code == .unsupportedMediaType {
            #expect(m == ErrorMapping(status: 415, name: "BadRequest"))
            return
        }
        #expect(Self.contract[m.name] == m.status, "\(code) → \(m.status) \(m.name)")
    }

    /// A refusal's wait and its extra answer members travel on the error itself, through the one
    /// table, and take no part in matching on codes.
    @Test func aRefusalCarriesItsWaitAndItsMembers() {
        let plain = TokenError(.tooManyRequests, "too many requests")
        let waiting = plain.retrying(after: 42)
        #expect(waiting.retryAfter == 42 && plain.retryAfter == nil && waiting.message == plain.message && waiting == plain)
        var step = TokenError(.mfaRequired, "a second factor is required")
        step.answerMembers = ["mfa_token": "t"]
        #expect(step == TokenError(.mfaRequired, "other words") && step.answerMembers?["mfa_token"] == "t")
        #expect(ErrorMapping.of(step.code) == ErrorMapping(status: 401, name: "MFARequired"))
    }

    @Test func classesDecideWhatTheTableDoesNotName() {
        #expect(ErrorMapping.of(.invalidNonce) == ErrorMapping(status: 401, name: "AuthError"))
        #expect(ErrorMapping.of(.customFunctionRefused) == ErrorMapping(status: 401, name: "AuthError"))
        #expect(ErrorMapping.of(.providerUnavailable) == ErrorMapping(status: 503, name: "ServiceUnavailable"))
        #expect(ErrorMapping.of(.invalidConfiguration) == ErrorMapping(status: 500, name: "InternalServerError"))
    }

    /// docs/errors.md's status table is the mapping: each code a row lists has the row's status and
    /// one of its `error_code` names, and each code the mapping names apart from its class is listed.
    @Test func theDocsStatusTableIsTheMapping() throws {
        let page = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        let codes = Dictionary(uniqueKeysWithValues: Self.allCodes.map { ($0.rawValue, $0) })
        // The `quoted` words of a cell.
        func quoted(_ cell: String) -> [String] {
            cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        var listed: Set<String> = []
        for line in page.split(separator: "\n") where line.hasPrefix("| 4") || line.hasPrefix("| 5") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let status = Int(cells[0].prefix(3)) else { continue }
            let names = Set(quoted(cells[0]))
            for name in quoted(cells[1]) where name.allSatisfy({ ("a"..."z").contains($0) || $0 == "_" }) && TokenError.Kind(rawValue: name) == nil {
                let code = try #require(codes[name], "docs/errors.md lists \(name), which no module declares")
                let m = ErrorMapping.of(code)
                #expect(
                    m.status == status && names.contains(m.name),
                    "\(name): docs say \(status) \(names.sorted()), the server answers \(m.status) \(m.name)")
                listed.insert(name)
            }
        }
        #expect(listed.count > 20, "rows read: \(listed.count)")
        let mapped = Set(ErrorMapping.byCode.keys)
        #expect(mapped.subtracting(listed).isEmpty, "mapped but not in docs/errors.md's table: \(mapped.subtracting(listed).sorted())")
    }

    @Test func namedCodesKeepTheirContractRows() {
        #expect(ErrorMapping.of(.userDisabled) == ErrorMapping(status: 403, name: "UserDisabled"))
        #expect(ErrorMapping.of(.identityInUse) == ErrorMapping(status: 409, name: "AccountNameInUse"))
        #expect(ErrorMapping.of(.sessionRevoked) == ErrorMapping(status: 401, name: "InvalidSession"))
        #expect(ErrorMapping.of(.customFunctionFailed) == ErrorMapping(status: 502, name: "FunctionExecutionError"))
        #expect(ErrorMapping.of(.storeUnavailable) == ErrorMapping(status: 503, name: "ServiceUnavailable"))
    }
}
