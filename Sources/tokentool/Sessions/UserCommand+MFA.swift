import ArgumentParser
import Foundation
import JOSE
import Sessions

extension UserCommand {
    /// `user mfa USER_ID` (status) and `user mfa reset USER_ID`: an operator looking at a user's
    /// second factors, or removing them for a user who lost the authenticator and the recovery codes.
    struct MFA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mfa", abstract: "A user's second factors: status, or reset by an operator.",
            subcommands: [Status.self, Reset.self], defaultSubcommand: Status.self)

        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Show whether TOTP is on, the recovery codes left and any lock.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var output: JSONOption
            @Argument(help: "The user id.") var userID: String

            func run() async throws {
                try await reportingErrors(json: output.json) {
                    let (row, passkeys) = try await store.withSessions { s in try await MFA.factors(of: userID, in: s) }
                    let now = Int64(try store.configuration().clock.now().timeIntervalSince1970)
                    let locked = row?.lockedUntil.flatMap { $0 > now ? $0 : nil }
                    let on = row?.totpEnabled ?? false
                    let pending = row.map { $0.sealedTOTPSecret != nil && $0.totpConfirmedAt == nil } ?? false
                    let left = on || !passkeys.isEmpty ? row?.recoveryCodes.count ?? 0 : 0
                    if output.json {
                        printJSON(
                            .object([
                                "user_id": .string(userID), "totp": .bool(on), "totp_pending": .bool(pending),
                                "passkeys": .array(passkeys.map { .object(["id": .string($0.id), "name": .string($0.name)]) }),
                                "recovery_codes_left": .int(Int64(left)), "locked_until": locked.map(JSONValue.int) ?? .null,
                            ]))
                    } else {
                        print(
                            "user \(userID): TOTP \(on ? "on" : pending ? "pending" : "off"), \(passkeys.count) passkey\(passkeys.count == 1 ? "" : "s"), \(left) recovery codes left"
                        )
                        for passkey in passkeys { print("  passkey \(passkey.id) \"\(passkey.name)\"") }
                        if let locked { print("locked until \(locked) (Unix seconds) after wrong codes") }
                    }
                }
            }
        }

        struct Reset: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract:
                    "Remove a user's TOTP factor, passkeys, recovery codes and lock (a user who lost them); the next sign-in needs the password only."
            )
            @OptionGroup var store: StoreOptions
            @OptionGroup var output: JSONOption
            @Argument(help: "The user id.") var userID: String

            func run() async throws {
                try await reportingErrors(json: output.json) {
                    let removed = try await store.withSessions { s in
                        let user = try await MFA.user(userID, in: s)
                        return try await s.store.transaction { tx in
                            let factors = try await tx.deleteMFAFactors(app: user.app, userID: userID)
                            return try await tx.deletePasskeys(app: user.app, userID: userID) > 0 || factors
                        }
                    }
                    // An operator's change to an account's security: said on stderr too, for the shell's log.
                    FileHandle.standardError.write(Data("notice: second factors of user \(userID) \(removed ? "removed" : "were none")\n".utf8))
                    if output.json {
                        printJSON(.object(["user_id": .string(userID), "reset": .bool(removed)]))
                    } else {
                        print(removed ? "removed the second factors of user \(userID)" : "user \(userID) has no second factor")
                    }
                }
            }
        }

        /// The user, or `user_not_found`.
        static func user(_ id: String, in sessions: SessionManager) async throws -> UserRecord {
            // The user of any app: the store's row, not the manager's app's view.
            guard let user = try await sessions.store.read({ tx in try await tx.user(id: id) }) else {
                throw TokenError(.userNotFound, "no user has id \"\(id.prefix(64))\"")
            }
            return user
        }

        /// The user's factors row and passkeys in the user's own app.
        static func factors(of id: String, in sessions: SessionManager) async throws -> (MFAFactorsRecord?, [PasskeyRecord]) {
            let user = try await user(id, in: sessions)
            return try await sessions.store.read { tx in
                (try await tx.mfaFactors(app: user.app, userID: id, forUpdate: false), try await tx.passkeys(app: user.app, userID: id))
            }
        }
    }
}
