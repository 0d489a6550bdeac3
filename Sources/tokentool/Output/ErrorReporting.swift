import ArgumentParser
import JOSE

/// A failure as the `--json` contract shapes it: `{"valid":false,"error":{"code":…,"message":…}}`.
func failureJSON(_ error: TokenError) -> JSONValue {
    var e: JSONObject = ["code": .string(error.code.rawValue), "message": .string(error.message)]
    if let claim = error.claim { e["claim"] = .string(claim) }
    return .object(["valid": false, "error": .object(e)])
}

/// Runs `body`; with `json`, a TokenError becomes the JSON failure object on stdout and the
/// matching exit code (1 rejected, 2 configuration); without, it propagates to `main`.
func reportingErrors(json: Bool, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as TokenError where json {
        throw reportedJSON(error)
    }
}

/// The synchronous form, for commands that do no network or store I/O: they run on the main
/// thread without a task switch (which also keeps them runnable under valgrind).
func reportingErrors(json: Bool, _ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as TokenError where json {
        throw reportedJSON(error)
    }
}

private func reportedJSON(_ error: TokenError) -> ExitCode {
    printJSON(failureJSON(error))
    return error.code.kind.exitCode
}

extension TokenError.Kind {
    /// The CLI's exit code for a failure of this class: 1 when a token, code or credential was
    /// rejected, 2 when nothing was judged (configuration, infrastructure).
    var exitCode: ExitCode {
        switch self {
        case .rejected: ExitCode(1)
        case .configuration, .infrastructure: ExitCode(2)
        }
    }
}

// MARK: - Commands that judge no token

/// Runs `body` for a command that rejects no token (`sign`, `keygen`, `jwk`, `jwks`): every
/// TokenError there is a usage or configuration problem, so it prints `error: <code>: <message>`
/// and exits 2 whatever its code (an `--alg` the key does not allow is still the caller's mistake).
func configurationErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as TokenError {
        printError("error: \(error.code.rawValue): \(error.message)")
        throw ExitCode(2)
    }
}
