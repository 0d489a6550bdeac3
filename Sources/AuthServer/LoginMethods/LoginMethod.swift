import Foundation
import Identity
import JOSE
import Sessions

/// One way of signing in: a provider of the login route (`anon-user`, `local-userpass`, …). Each
/// is one type in one file of this folder, listed once in ``LoginMethodRegistry/standard``.
///
/// A method says its config name, how it reads its member of `apps.ID.providers` (checked when
/// the config is read), how it is made at server start (its HTTP clients and keys), how it turns a
/// login body into a ``LoginProof``, and what else it can do (``LoginCapabilities``). It issues
/// nothing: the login route makes an ``Authentication`` of the proof and only then a session.
protocol LoginMethod: Sendable {
    /// What the method reads from its member of `apps.ID.providers`.
    associatedtype Config: Sendable = NoLoginConfig

    /// The config name: the member of `apps.ID.providers`, the login path's `{provider}`, the
    /// `provider_type` of the identities it makes.
    static var name: String { get }
    /// What it can do besides signing in.
    static var capabilities: LoginCapabilities { get }
    /// Limits counted per client address for each of its logins, after `login_per_address`, by the
    /// route table (the login row names each limit by its config name).
    static var throttles: [LoginThrottle] { get }
    /// The method names its proofs add to a sign-in, each with its RFC 8176 `amr` value: its own
    /// name (`local-userpass` → `pwd`, an upstream provider → `fed`), and a passkey's user
    /// verification too (`passkey-uv` → `user`). None by default (`anon-user`, `api-key`, a
    /// custom function prove no method `amr` names).
    static var amr: [AMRValue] { get }
    /// The members of its login body, for the OpenAPI document's union of every method's.
    static var loginBody: LoginBody { get }
    /// `true` when its refusals reach the caller as thrown (its own codes: `login_failed`, …);
    /// `false` (the default) turns a refused credential into `auth_failed` naming the check.
    static var answersOwnRefusals: Bool { get }

    /// Reads the method's member of `apps.ID.providers`; the reader refuses the members it left
    /// unread (`PATH: unknown member`). Secret files are read here, so a bad one stops the start.
    /// - Throws: `invalid_configuration` naming the member.
    static func readConfig(_ member: inout ConfigObject, _ context: LoginConfigContext) throws -> Config

    /// Makes the method of one app from its config when the server starts.
    /// - Throws: `invalid_configuration` (a key that does not load, a provider that refuses its settings).
    init(config: Config, environment: LoginEnvironment) throws

    /// Checks a login body: who it proves. Linking (`?link=true`) is ``LoginRequest/linkingTo``.
    /// - Throws: the check's code (made `auth_failed` unless ``answersOwnRefusals``), or
    ///   `missing_parameter`, `invalid_parameter`, `bad_request` for the body's shape.
    func authenticate(_ request: LoginRequest) async throws -> LoginProof
}

extension LoginMethod {
    static var amr: [AMRValue] { [] }
    static var loginBody: LoginBody { .members([]) }
    static var throttles: [LoginThrottle] { [] }
    static var answersOwnRefusals: Bool { false }
}

extension LoginMethod where Config == NoLoginConfig {
    static func readConfig(_ member: inout ConfigObject, _ context: LoginConfigContext) throws -> NoLoginConfig { NoLoginConfig() }
}

/// What a login body holds besides `options.device`, as the OpenAPI document describes it.
enum LoginBody: Sendable {
    /// These members (none: a body of `options` alone).
    case members([Member])
    /// Any JSON object (a custom function's arguments).
    case anyObject

    struct Member: Sendable {
        enum Kind: Sendable { case string, object }
        let name: String
        let kind: Kind
        /// What it holds, when its name does not say (`the email`).
        let note: String?

        init(_ name: String, _ kind: Kind = .string, note: String? = nil) {
            self.name = name
            self.kind = kind
            self.note = note
        }
    }
}

/// The config of a method that takes none: its member is `{}`.
struct NoLoginConfig: Sendable {}

/// What a login method can do besides a login body's sign-in.
struct LoginCapabilities: OptionSet, Sendable {
    let rawValue: Int

    /// `?link=true`: what it proves joins the bearer's user (an identity is linked; an
    /// email/password account joins in its own login). API keys are never linked.
    static let link = LoginCapabilities(rawValue: 1 << 0)
    /// Signs in by a browser round trip to the provider (a start route and a callback, with
    /// `state` and `nonce` kept server-side): the provider's redirect flow (``WebSignInMethod``).
    static let webRedirect = LoginCapabilities(rawValue: 1 << 1)
    /// Serves as a second factor after another method's proof (a TOTP code, a passkey's
    /// assertion): its proof adds to an ``Authentication``'s methods. None does yet.
    static let secondFactor = LoginCapabilities(rawValue: 1 << 2)
    /// Its App Services sign-in is followed by the user's second factor when the user has one
    /// (401 `MFARequired` with an `mfa_token` for `…/local-userpass/mfa`): an email and
    /// password alone do not sign a user with a second factor in.
    static let secondStep = LoginCapabilities(rawValue: 1 << 3)
}

/// A limit a method adds per client address: the key is `name:ADDRESS`.
struct LoginThrottle: Sendable {
    /// The key's prefix (`anon_addr`).
    let name: String
    /// The limit's config name (`anonymous_per_address`): the login route's row names it.
    let limitName: String
    /// The config's limit for it.
    let limit: @Sendable (ServerConfig.Limits) -> RateLimit
}

/// What reading a method's config may need beyond its own member.
struct LoginConfigContext {
    /// The config read so far (its folder resolves relative paths).
    let server: ServerConfig
    /// The app whose member this is.
    let appID: String

    /// The secret file `member` names (owner-only, read at once), or `nil` without the member.
    func secret(_ o: inout ConfigObject, _ member: String) throws -> [UInt8]? {
        try o.string(member).map { try ConfigSecret.read(server.resolve($0), what: o.path(member)) }
    }
}

/// What a method is made with at server start.
struct LoginEnvironment: Sendable {
    /// The server's config: `provider_urls`, `provider_timeout`.
    let server: ServerConfig
    /// The HTTP client of every provider.
    let transport: any HTTPTransport
    /// The app's email/password accounts, when it has the `local-userpass` provider.
    let accounts: AppAccounts?
    /// The server's slots for password sign-ins per client address, shared by every app.
    let passwordSlots: AddressSlots

    /// `provider_timeout` in seconds.
    var providerTimeout: TimeInterval { TimeInterval(server.providerTimeout) }
}

/// One login body as a method sees it.
struct LoginRequest: Sendable {
    let body: RequestJSON
    /// The app's session manager (its users, identities and API keys).
    let sessions: SessionManager
    /// With `?link=true`: the bearer's user, whom what the body proves is to join.
    let linkingTo: String?
    /// The client's address, as the per-address limits count it.
    let clientAddress: String?
}

/// What a login body proved.
enum LoginProof: Sendable {
    /// An identity, whose user is found or made (or which joins the bearer's user), with a
    /// provider token to keep sealed beside it (Apple's refresh token, as ``KeptProviderToken/stored``).
    case identity(Identity, keep: String?)
    /// An existing user (an email/password account's).
    case user(String)
    /// An API key's owner, signing in with that key (the session ends with the key).
    case apiKey(userID: String, keyID: String)
    /// A passkey's owner; `userVerified` when the authenticator verified the user (UV).
    case passkey(userID: String, userVerified: Bool)
}

extension Identity {
    /// The identity under the method's config name (`oauth2-google`, not `google`).
    func named(_ method: String) -> Identity {
        var i = self
        i.provider = method
        return i
    }
}

extension ConfigObject {
    /// A non-empty array of non-empty strings (`client_ids`).
    mutating func nonEmptyStrings(_ member: String) throws -> [String] {
        guard let ids = try strings(member), !ids.isEmpty, ids.allSatisfy({ !$0.isEmpty }) else {
            throw error(member, "must be a non-empty array of non-empty strings")
        }
        return ids
    }
}
