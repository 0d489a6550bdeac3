import CLIHarness
import Foundation
import Identity
import JOSE
import Sessions
import Testing

@testable import AuthServer

/// A login method only these tests know, registered for one test: its config needs `prefix`;
/// a body `{"subject"}` names the identity `prefix + subject`.
struct EchoLogin: LoginMethod {
    static let name = "test-echo"
    static let capabilities: LoginCapabilities = [.link]

    struct Config: Sendable {
        var prefix: String
    }

    let prefix: String

    static func readConfig(_ member: inout ConfigObject, _ context: LoginConfigContext) throws -> Config {
        Config(prefix: try member.requiredString("prefix"))
    }

    init(config: Config, environment: LoginEnvironment) { prefix = config.prefix }

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        .identity(Identity(provider: Self.name, subject: prefix + (try request.body.string("subject", maxBytes: 64))), keep: nil)
    }
}

/// Adding a login method is one type and one line of the registry; a login's authentication
/// (user, identity, methods, time) comes before its session.
@Suite("Login methods")
struct LoginMethodTests {
    static let base = LiveServer.base
    static let apps = #"{ "myapp": { "providers": { "anon-user": {}, "api-key": {}, "test-echo": { "prefix": "echo-" } } } }"#

    static func refusal(_ providers: String) -> String? {
        let text = #"{"public_url":"https://a.example","apps":{"x":{"providers":\#(providers)}}}"#
        do { _ = try ServerConfig.parse(text, directory: "/srv"); return nil } catch let e as TokenError {
            #expect(e.code == .invalidConfiguration)
            return e.message
        } catch { return "\(error)" }
    }

    @Test("the standard registry lists each provider once, under its config name")
    func standardNames() {
        let names = LoginMethodRegistry.standard.names
        #expect(Set(names).count == names.count)
        #expect(
            Set(names) == [
                "anon-user", "local-userpass", "api-key", "custom-token", "custom-function", "oauth2-google", "oauth2-apple", "oauth2-facebook",
                "passkey",
            ])
        #expect(AppConfig.providerNames == Set(names))
        #expect(LoginMethodRegistry.standard.method(named: "api-key").map { $0.capabilities.contains(.link) } == false)
    }

    @Test("every *Login.swift of Sources/AuthServer/LoginMethods is one registered method; the recipe's files exist")
    func everyFileIsRegistered() throws {
        let files = try RegistryFiles.types(in: "LoginMethods", suffix: "Login.swift")
        #expect(files == LoginMethodRegistry.standard.methods.map { String(describing: $0) }.sorted())

        let page = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let recipe = try #require(page.components(separatedBy: "## Adding a login method").dropFirst().first?.components(separatedBy: "\n## ").first)
        let paths = recipe.split(whereSeparator: { " (`:".contains($0) || $0.isNewline })
            .map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ").,")) }
            .filter { $0.hasPrefix("Sources/") || $0.hasPrefix("Tests/") }
        #expect(paths.count >= 5)
        for path in paths where !path.hasSuffix("/") {
            #expect(FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent(path).path), "\(path)")
        }
    }

    @Test("a method's name is spelled in its own files alone (Name.swift, Name+….swift); the others use the type's name")
    func namesLiveInTheirFiles() throws {
        let root = CLI.packageRoot.appendingPathComponent("Sources/AuthServer")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        // `passkey` is also a body member and an element id of the pages, which are not the method's name.
        for method in LoginMethodRegistry.standard.methods where method.name != PasskeyLogin.name {
            let owner = String(describing: method)
            for file in files {
                let base = (file as NSString).lastPathComponent
                if base == owner + ".swift" || base.hasPrefix(owner + "+") { continue }
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                #expect(!text.contains("\"" + method.name + "\""), "Sources/AuthServer/\(file) spells \(method.name); use \(owner).name")
            }
        }
        // The facts the server reads from the methods: an amr for every method a sign-in can name
        // (RFC 8176), the login body's members of each, a title for each web flow.
        #expect(OPSession.amr(of: [UserpassLogin.name, TOTPFactor.name]) == ["pwd", "otp", "mfa"])
        #expect(OPSession.amr(of: [GoogleLogin.name]) == ["fed"] && OPSession.amr(of: [AnonymousLogin.name]) == [])
        #expect(OPSession.amr(of: [PasskeyLogin.name, PasskeyLogin.userVerifiedMethod]) == ["hwk", "user", "mfa"])
        #expect(OPSession.methods(reproducing: ["pwd", "otp"]) == [UserpassLogin.name, TOTPFactor.name])
        #expect(WebSignInMethods.standard.map { $0.title } == ["Google", "Apple", "Facebook"])
        let body = try #require(RouteShape.loginBody(device: .string).objectContext?.properties.keys.map { $0 })
        #expect(["username", "password", "key", "token", "id_token", "authCode", "nonce", "accessToken", "challenge_id", "credential"].allSatisfy(body.contains))
    }

    @Test("a method registered in a test: its config is read and checked, it signs in and links; unknown without it", arguments: StoreKind.available)
    func registeredInATest(kind: StoreKind) async throws {
        #expect(Self.refusal(#"{"test-echo":{"prefix":"p"}}"#) == "apps.x.providers.test-echo: unknown member")
        try await LoginMethodRegistry.$inUse.withValue(LoginMethodRegistry.standard.adding(EchoLogin.self)) {
            #expect(Self.refusal(#"{"test-echo":{}}"#) == "apps.x.providers.test-echo.prefix: required member is missing")
            #expect(Self.refusal(#"{"test-echo":{"prefix":"p","pre":1}}"#) == "apps.x.providers.test-echo.pre: unknown member")
            #expect(Self.refusal(#"{"test-echo":{"prefix":"p"}}"#) == nil)
            try await LiveServer.with(kind, apps: Self.apps) { s in
                let login = Self.base + "/app/myapp/auth/providers/test-echo/login"
                let first = try await s.call(.POST, login, body: #"{"subject":"alice"}"#)
                #expect(first.status == 200, "\(first.body)")
                let again = try await s.call(.POST, login, body: #"{"subject":"alice"}"#)
                #expect(again.status == 200 && again["user_id"] == first["user_id"] && again["refresh_token"] != first["refresh_token"])
                let profile = try await s.call(.GET, Self.base + "/auth/profile", bearer: first["access_token"])
                let identity = try #require(profile.object["identities"]?.arrayValue?.first?.objectValue)
                #expect(identity["provider_type"] == "test-echo" && identity["id"] == "echo-alice")
                #expect(try await s.call(.POST, login, body: "{}").errorCode == "MissingParameter")

                // Linking, as the method says it can: the identity joins the anonymous user.
                let anonymous = try await s.call(.POST, Self.base + "/app/myapp/auth/providers/anon-user/login", body: "{}")
                let linked = try await s.call(.POST, login + "?link=true", body: #"{"subject":"bob"}"#, bearer: anonymous["access_token"])
                #expect(linked.status == 200 && linked["user_id"] == anonymous["user_id"], "\(linked.body)")
                let types = try await s.call(.GET, Self.base + "/auth/profile", bearer: linked["access_token"]).object["identities"]?.arrayValue?
                    .compactMap { $0.objectValue?["provider_type"]?.stringValue }
                #expect(types?.sorted() == ["anon-user", "test-echo"])
            }
        }
    }

    @Test("an authentication: its user and identity, the methods used, the time by the app's clock", arguments: StoreKind.available)
    func authentication(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            var config = SessionConfiguration(issuer: "https://auth.test", audience: "myapp")
            config.app = "myapp"
            config.masterKey = [UInt8](repeating: 7, count: 32)
            config.clock = .fixed(now)
            let sessions = SessionManager(store: t.store, configuration: config)

            let identity = Identity(provider: "oauth2-apple", subject: "001")
            let first = try await Authentication.signIn(.identity(identity, keep: "kept"), method: "oauth2-apple", sessions: sessions)
            #expect(first.identity == identity && first.methods == ["oauth2-apple"] && first.time == now)
            #expect(first.createdUser && first.providerToken == "kept" && first.apiKeyID == nil)
            let again = try await Authentication.signIn(.identity(identity, keep: nil), method: "oauth2-apple", sessions: sessions)
            #expect(again.userID == first.userID && !again.createdUser)

            let byKey = try await Authentication.signIn(.apiKey(userID: first.userID, keyID: "k1"), method: "api-key", sessions: sessions)
            #expect(byKey == Authentication(userID: first.userID, methods: ["api-key"], time: now, apiKeyID: "k1"))
            let byAccount = try await Authentication.signIn(.user(first.userID), method: "local-userpass", sessions: sessions)
            #expect(byAccount == Authentication(userID: first.userID, methods: ["local-userpass"], time: now))

            // A link names the bearer's user; a method that cannot link is refused, its proof unused.
            let other = Identity(provider: "anon-user", subject: "a1")
            let linked = try await Authentication.link(.identity(other, keep: nil), method: AnonymousLogin.self, to: first.userID, sessions: sessions)
            #expect(linked.userID == first.userID && linked.identity == other && linked.methods == ["anon-user"] && linked.time == now)
            #expect(try await sessions.identities(of: first.userID).map(\.provider).sorted() == ["anon-user", "oauth2-apple"])
            let refused = await #expect(throws: TokenError.self) {
                _ = try await Authentication.link(.apiKey(userID: "u", keyID: "k"), method: APIKeyLogin.self, to: first.userID, sessions: sessions)
            }
            #expect(refused?.code == .invalidParameter)
        }
    }
}
