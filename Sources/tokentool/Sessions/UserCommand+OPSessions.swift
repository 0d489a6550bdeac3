import ArgumentParser
import Foundation
import JOSE
import Sessions

extension UserCommand {
    /// `user op-sessions USER_ID`: the user's live browser sessions at the OpenID Provider (the
    /// hosted login's cookie), each with its `sid`, when the browser signed in and how.
    struct OPSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "op-sessions", abstract: "List a user's live browser sessions at the OpenID Provider (sid, sign-in time, amr).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The user id.") var userID: String

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let sessions = try await store.withSessions { try await $0.opBrowserSessions(ofUser: userID) }
                if output.json {
                    printJSON(
                        .object([
                            "user_id": .string(userID),
                            "op_sessions": .array(
                                sessions.map {
                                    .object([
                                        "sid": .string($0.sessionID), "auth_time": .int($0.authTime), "amr": .array($0.amr.map(JSONValue.string)),
                                        "created_at": .int($0.createdAt), "expires_at": .int($0.expiresAt),
                                    ])
                                }),
                        ]))
                    return
                }
                print("user \(userID): \(sessions.count) live OP browser session\(sessions.count == 1 ? "" : "s")")
                for s in sessions {
                    print(
                        "  sid \(s.sessionID) signed in \(UTCTime.format(Double(s.authTime))) (\(s.amr.joined(separator: " "))), ends \(UTCTime.format(Double(s.expiresAt)))"
                    )
                }
            }
        }
    }

    /// `user end-op-session USER_ID SID`: signs that browser out and revokes the sessions its
    /// relying parties got through it, as the browser's own logout would.
    struct EndOPSession: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "end-op-session",
            abstract: "End one of a user's OP browser sessions and revoke the sessions relying parties got through it.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The user id.") var userID: String
        @Argument(help: "The OP session's sid (from op-sessions, or an ID token's sid).") var sid: String

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let revoked = try await store.withSessions { try await $0.endOPBrowserSession(ofUser: userID, sessionID: sid) }
                guard let revoked else {
                    throw TokenError(.invalidInput, "user \(userID.prefix(64)) has no live OP browser session \"\(sid.prefix(64))\"")
                }
                if output.json {
                    printJSON(.object(["ended": .string(sid), "user_id": .string(userID), "sessions_revoked": .int(Int64(revoked))]))
                } else {
                    print("ended OP session \(sid) of user \(userID); revoked \(revoked) session\(revoked == 1 ? "" : "s") issued through it")
                }
            }
        }
    }
}
