import ArgumentParser
import JOSE
import Sessions

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Users of a session store.",
        subcommands: [Delete.self, Show.self, Disable.self, Enable.self, MFA.self, OPSessions.self, EndOPSession.self])

    /// `user disable` / `user enable`: a disabled user's logins and refreshes answer 403 `UserDisabled`
    /// and its access tokens stop passing the server's live checks.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a user: no sign-in, no refresh, access tokens refused by the server.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The user id.") var userID: String

        func run() async throws { try await UserCommand.setDisabled(userID, true, store: store, json: output.json) }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user again.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The user id.") var userID: String

        func run() async throws { try await UserCommand.setDisabled(userID, false, store: store, json: output.json) }
    }

    static func setDisabled(_ userID: String, _ disabled: Bool, store: StoreOptions, json: Bool) async throws {
        try await reportingErrors(json: json) {
            try await store.withSessions { try await $0.setUserDisabled(id: userID, disabled) }
            if json {
                printJSON(.object(["disabled": .bool(disabled), "user_id": .string(userID)]))
            } else {
                print("\(disabled ? "disabled" : "enabled") user \(userID)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user with its identities and sessions (one transaction; nothing else).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The user id.") var userID: String

        func run() async throws {
            try await reportingErrors(json: output.json) {
                try await store.withSessions { try await $0.deleteUser(id: userID) }
                if output.json { printJSON(.object(["deleted": true, "user_id": .string(userID)])) } else { print("deleted user \(userID)") }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user's identities and sessions.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The user id.") var userID: String

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let (identities, sessions) = try await store.withSessions { s -> ([IdentityRecord], [SessionRecord]) in
                    guard try await s.user(id: userID) != nil else { throw TokenError(.userNotFound, "no user has id \"\(userID.prefix(64))\"") }
                    return (try await s.identities(of: userID), try await s.sessions(of: userID))
                }
                let now = try store.configuration().clock.now().timeIntervalSince1970
                if output.json {
                    printJSON(
                        .object([
                            "user_id": .string(userID),
                            "identities": .array(
                                identities.map {
                                    .object([
                                        "provider": .string($0.provider), "subject": .string($0.subject),
                                        "issuer": $0.issuer.isEmpty ? .null : .string($0.issuer),
                                        "email": $0.email.map(JSONValue.string) ?? .null,
                                    ])
                                }),
                            "sessions": .array(
                                sessions.map { f in
                                    .object([
                                        "sid": .string(f.id), "client_id": .string(f.clientID), "created_at": .int(f.createdAt),
                                        "expires_at": .int(min(f.expiresAt, f.idleExpiresAt)), "live": .bool(f.isLive(at: Int64(now))),
                                        "revoked_reason": f.revokeReason.map(JSONValue.string) ?? .null,
                                    ])
                                }),
                        ]))
                } else {
                    print("user \(userID)")
                    for i in identities {
                        print("  identity \(i.provider)\(i.issuer.isEmpty ? "" : " (\(i.issuer))") \(i.subject)\(i.email.map { " <\($0)>" } ?? "")")
                    }
                    for f in sessions {
                        let state = f.revokedAt != nil ? "revoked (\(f.revokeReason ?? "?"))" : (f.isLive(at: Int64(now)) ? "live" : "expired")
                        print("  session \(f.id) \(f.clientID) \(state), ends \(UTCTime.format(Double(min(f.expiresAt, f.idleExpiresAt))))")
                    }
                }
            }
        }
    }
}
