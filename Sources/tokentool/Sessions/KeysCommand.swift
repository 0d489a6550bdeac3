import ArgumentParser
import JOSE
import Sessions

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "The signing-key ring of a session store.",
        subcommands: [Rotate.self, Revoke.self, JWKS.self, List.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new active signing key; the old one stays published until its tokens expire.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let info = try await store.withSessions { try await $0.keyRing.rotate() }
                if output.json {
                    printJSON(.object(["kid": .string(info.keyID), "alg": .string(info.algorithm), "sealed": .bool(info.sealed)]))
                } else {
                    print("active key \(info.keyID) (\(info.algorithm)\(info.sealed ? ", sealed" : ""))")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a compromised key: out of the JWKS at once, its tokens stop verifying (an active key is replaced).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption
        // A kid is an RFC 7638 thumbprint in base64url: one in 64 starts with '-', which a
        // positional argument would read as an option. `--kid` takes the next word whatever it is.
        @Argument(help: "The key id (kid) to revoke (one starting with '-': use --kid, or put it after --).") var positionalKid: String?
        @Option(name: .customLong("kid"), parsing: .unconditional, help: "The key id to revoke, whatever its first character.")
        var optionKid: String?

        var kid: String { optionKid ?? positionalKid ?? "" }

        func validate() throws {
            guard (optionKid == nil) != (positionalKid == nil) else { throw ValidationError("name one key id: KID or --kid KID") }
        }

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let replacement = try await store.withSessions { try await $0.keyRing.revoke(keyID: kid) }
                if output.json {
                    printJSON(.object(["revoked": .string(kid), "active": replacement.map { .string($0.keyID) } ?? .null]))
                } else {
                    print("revoked key \(kid)" + (replacement.map { "; new active key \($0.keyID) (\($0.algorithm))" } ?? ""))
                }
            }
        }
    }

    struct JWKS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "jwks", abstract: "Print the published JWKS (active key and retired keys still in use).")
        @OptionGroup var store: StoreOptions

        func run() async throws {
            let text = try await store.withSessions { s -> String in
                let set = try await s.keyRing.jwks()
                if set.keys.isEmpty { _ = try await s.keyRing.activeKey(); return try await s.keyRing.jwks().jsonString(pretty: true) }
                return try set.jsonString(pretty: true)
            }
            print(text)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the signing keys, active and retired.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: JSONOption

        func run() async throws {
            try await reportingErrors(json: output.json) {
                let keys = try await store.withSessions { try await $0.keyRing.keys() }
                let now = try store.configuration().clock.now().timeIntervalSince1970
                if output.json {
                    printJSON(
                        .object([
                            "keys": .array(
                                keys.map { k in
                                    .object([
                                        "kid": .string(k.keyID), "alg": .string(k.algorithm), "active": .bool(k.isActive), "sealed": .bool(k.sealed),
                                        "created_at": .int(k.createdAt), "retired_at": k.retiredAt.map(JSONValue.int) ?? .null,
                                        "publish_until": k.publishUntil.map(JSONValue.int) ?? .null,
                                        "revoked_at": k.revokedAt.map(JSONValue.int) ?? .null,
                                    ])
                                })
                        ]))
                } else {
                    for k in keys {
                        let state =
                            k.revokedAt != nil
                            ? "revoked"
                            : k.isActive
                                ? "active"
                                : "retired, published until \(UTCTime.format(Double(k.publishUntil ?? 0))) (\(UTCTime.relative(Double(k.publishUntil ?? 0), now: now)))"
                        print("\(k.keyID) \(k.algorithm)\(k.sealed ? " sealed" : "") \(state)")
                    }
                }
            }
        }
    }
}
