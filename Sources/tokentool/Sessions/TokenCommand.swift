import ArgumentParser
import Foundation
import Identity
import JOSE
import Sessions

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Issue, refresh, revoke and introspect token pairs in a session store.",
        subcommands: [Issue.self, Refresh.self, Revoke.self, Introspect.self, Purge.self, SessionBench.self])

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a token pair in a new session for a user (created if needed).")
        @OptionGroup var store: StoreOptions
        @Option(name: .long, help: ArgumentHelp("The user id (the user is created if it does not exist).", valueName: "USER_ID"))
        var sub: String?
        @Option(
            name: .customLong("identity-json"),
            help: ArgumentHelp(
                "A normalized identity (as `tokentool idp … --json` prints it): sign in, creating the user on first use.", valueName: "FILE"))
        var identityJSON: String?
        @OptionGroup var output: JSONOption

        func validate() throws {
            guard (sub == nil) != (identityJSON == nil) else { throw ValidationError("give exactly one of --sub and --identity-json") }
        }

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let pair: TokenPair = try await store.withSessions { sessions in
                    if let sub {
                        _ = try await sessions.ensureUser(id: sub)
                        return try await sessions.issueTokens(userID: sub)
                    }
                    return try await sessions.signIn(with: try readIdentity(identityJSON!)).tokens
                }
                printPair(pair, json: output.json)
            }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rotate a refresh token: the presented one is spent, a new pair is printed.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The refresh token, or - to read it from standard input.") var refreshToken: String

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let token = try readTokenArgument(refreshToken)
                let pair = try await store.withSessions { try await $0.refresh(token, clientID: store.clientID) }
                printPair(pair, json: output.json)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Log out: revoke the whole session of a refresh token (or of an access token's sid).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "A refresh token or access token, or - to read it from standard input.") var token: String

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let text = try readTokenArgument(token)
                let sid = try await store.withSessions { try await $0.revoke(text, clientID: store.clientID) }
                if output.json { printJSON(.object(["revoked": true, "sid": .string(sid)])) } else { print("revoked session \(sid)") }
            }
        }
    }

    struct Introspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "RFC 7662 introspection of an access or refresh token; exit 1 when inactive.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "An access token or refresh token, or - to read it from standard input.") var token: String

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let text = try readTokenArgument(token)
                let result = try await store.withSessions { try await $0.introspect(text) }
                if output.json {
                    printJSON(.object(result.response))
                } else {
                    for (name, value) in result.response {
                        let shown = value.stringValue ?? value.jsonString
                        if name == "exp" || name == "iat", let t = value.numberValue {
                            print("\(name): \(shown) (\(UTCTime.format(t)))")
                        } else {
                            print("\(name): \(shown)")
                        }
                    }
                    if let reason = result.reason { printError("error: \(reason.code.rawValue): \(reason.message)") }
                }
                if !result.active { throw ExitCode(1) }
            }
        }
    }

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "The sweep: delete revoked and expired sessions and retired keys no longer published; erase the successors of tokens spent past the grace interval."
        )
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let counts = try await store.withSessions { try await $0.purge() }
                if output.json {
                    printJSON(
                        .object([
                            "sessions": .int(Int64(counts.sessions)), "refresh_tokens": .int(Int64(counts.refreshTokens)),
                            "signing_keys": .int(Int64(counts.signingKeys)), "spent_successors": .int(Int64(counts.spentSuccessors)),
                        ]))
                } else {
                    print(
                        "purged \(counts.sessions) sessions, \(counts.refreshTokens) refresh tokens, \(counts.signingKeys) signing keys; erased \(counts.spentSuccessors) spent tokens' successors"
                    )
                }
            }
        }
    }
}

/// Prints a token pair in the shape docs/sessions.md documents (`--json`) or as `name: value` lines.
func printPair(_ pair: TokenPair, json: Bool) {
    if json {
        printJSON(.object(pair.jsonObject))
    } else {
        print("user_id: \(pair.userID)")
        print("session: \(pair.sessionID)")
        print("access_token: \(pair.accessToken)")
        print("refresh_token: \(pair.refreshToken)")
        print("token_type: \(pair.tokenType)")
        print("expires_in: \(pair.expiresIn)")
        printError("note: the refresh token is shown once; the store keeps only its SHA-256 hash")
    }
}

/// Reads a normalized identity: the `identity` member of `tokentool idp … --json` output, or the identity object itself.
func readIdentity(_ path: String) throws -> Identity {
    let text = try readFileText(path)
    guard let value = try? JSONValue(parsing: text), case .object(var object) = value else {
        throw TokenError(.invalidInput, "\(path) is not a JSON object")
    }
    if case .object(let inner)? = object["identity"] { object = inner }
    do {
        return try JSONDecoder().decode(Identity.self, from: Data(JSONValue.object(object).jsonString.utf8))
    } catch {
        throw TokenError(.invalidInput, "\(path) is not an identity: it needs string members \"provider\" and \"subject\"")
    }
}
