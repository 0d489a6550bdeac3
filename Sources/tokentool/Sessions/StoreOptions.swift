import ArgumentParser
import Foundation
import JOSE
import SessionStorePostgres
import SessionStoreSQLite
import Sessions

/// Flags shared by `token`, `user` and `keys`: where the store is and the issuing policy.
struct StoreOptions: ParsableArguments {
    /// `--store`, `--store-file`: where the store is.
    @OptionGroup var place: StoreLocationOptions

    @Option(name: .long, help: "Access-token issuer (iss).")
    var iss: String = "tokentool"

    @Option(name: .long, help: "Access-token audience (aud).")
    var aud: String = "tokentool"

    @Option(name: .customLong("client-id"), help: "client_id of new sessions; refresh and revoke accept only that client's tokens.")
    var clientID: String = "tokentool"

    @Option(name: .customLong("access-ttl"), help: ArgumentHelp("Access-token lifetime.", valueName: "SECONDS"))
    var accessTTL: Int64 = 1800

    @Option(name: .customLong("refresh-ttl"), help: ArgumentHelp("Absolute lifetime of a session.", valueName: "SECONDS"))
    var refreshTTL: Int64 = 60 * 86_400

    @Option(name: .customLong("idle-ttl"), help: ArgumentHelp("A session dies after this long unused.", valueName: "SECONDS"))
    var idleTTL: Int64 = 14 * 86_400

    @Option(
        name: .long, help: ArgumentHelp("Seconds after a rotation during which the spent token returns the same successor.", valueName: "SECONDS"))
    var grace: Int64 = 10

    @Option(name: .customLong("key-alg"), help: "Algorithm of new signing keys (ES256, ES384, ES512, EdDSA, RS256, PS256).")
    var keyAlgorithm: String = "ES256"

    @Option(
        name: .customLong("master-key-file"),
        help: ArgumentHelp(
            "32-byte key (raw, hex or base64url) sealing private signing keys at rest (or $TOKENTOOL_MASTER_KEY_FILE).", valueName: "FILE"))
    var masterKeyFile: String?

    @OptionGroup var clock: ClockOption

    /// The configuration these flags describe.
    func configuration() throws -> SessionConfiguration {
        var config = SessionConfiguration(issuer: iss, audience: aud, defaultClientID: clientID)
        config.accessTokenLifetime = accessTTL
        config.refreshAbsoluteLifetime = refreshTTL
        config.refreshIdleLifetime = min(idleTTL, refreshTTL)
        config.reuseGraceInterval = grace
        guard let alg = JWSAlgorithm(rawValue: keyAlgorithm) else {
            throw TokenError(.invalidInput, "unknown key algorithm \"\(keyAlgorithm.prefix(16))\"")
        }
        config.signingAlgorithm = alg
        if let file = masterKeyFile ?? ProcessInfo.processInfo.environment["TOKENTOOL_MASTER_KEY_FILE"] {
            config.masterKey = try MasterKeyFile.read(path: file)
        }
        if clock.now != nil { config.clock = clock.clock }
        try config.validate()
        return config
    }

    /// The store location: the flags, `$TOKENTOOL_STORE_FILE`, `$TOKENTOOL_STORE`, else ./tokentool.sqlite.
    func location() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        return try place.given(environment: environment) ?? environment["TOKENTOOL_STORE"] ?? "./tokentool.sqlite"
    }

    /// `true` when the store is a PostgreSQL database.
    var isPostgres: Bool { Self.isPostgres((try? location()) ?? "") }

    static func isPostgres(_ location: String) -> Bool { location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") }

    /// A short name of the store kind, for output.
    var storeKind: String { isPostgres ? "postgres" : "sqlite" }

    /// Opens the store, runs `body` with a session manager on it, and closes the store.
    func withSessions<T>(_ body: (SessionManager) async throws -> T) async throws -> T {
        let config = try configuration()
        let location = try location()
        let opened: any SessionStore =
            Self.isPostgres(location)
            ? try await PostgresSessionStore.open(url: location)
            : try await SQLiteSessionStore.open(path: location)
        do {
            let result = try await body(SessionManager(store: opened, configuration: config))
            try? await opened.close()
            return result
        } catch {
            try? await opened.close()
            throw error
        }
    }
}
