import Identity
import JOSE
import Sessions

/// `passkey` `{"challenge_id","credential"}`: a passkey's assertion (WebAuthn
/// `AuthenticationResponseJSON`) over the challenge of `…/passkey/login/options`, by a
/// discoverable credential whose `userHandle` names its owner. Signs in as that user (no
/// identity): `amr` `["hwk"]`, with user verification `["hwk","user","mfa"]`. Never linked.
struct PasskeyLogin: LoginMethod {
    static let name = "passkey"
    static let loginBody: LoginBody = .members([.init("challenge_id", note: "the options' challenge_id"), .init("credential", .object, note: "a WebAuthn get() response")])
    static let capabilities: LoginCapabilities = []
    /// Refusals are `auth_failed` naming the step; a malformed response keeps its own code (400).
    static var answersOwnRefusals: Bool { true }
    /// The method name a user-verifying assertion adds (`amr` `user`).
    static let userVerifiedMethod = "passkey-uv"
    static let amr = [AMRValue(name, "hwk"), AMRValue(userVerifiedMethod, "user")]

    /// The relying party of every app's passkeys (the config's `passkeys`).
    let relyingParty: WebAuthnRelyingParty

    init(config: NoLoginConfig, environment: LoginEnvironment) { relyingParty = environment.server.passkeys }

    func authenticate(_ request: LoginRequest) async throws -> LoginProof {
        let challengeID = try request.body.string("challenge_id", maxBytes: 64)
        let response = try Self.assertion(request.body, "credential")
        switch try await request.sessions.checkPasskeyLogin(
            challengeID: challengeID, response: response, relyingParty: relyingParty)
        {
        case .accepted(let userID, let verified): return .passkey(userID: userID, userVerified: verified)
        case .refused(let reason): throw TokenError(.authFailed, "the passkey was refused: \(reason)")
        case .locked(let after):
            throw TokenError(.tooManyRequests, "too many failed sign-ins; try again in \(after) s").retrying(after: after)
        }
    }

    /// The body's member `name` as an assertion response.
    /// - Throws: `missing_parameter`; `webauthn_malformed` (400) for its shape.
    static func assertion(_ body: RequestJSON, _ name: String) throws -> WebAuthnAssertionResponse {
        guard let value = body.object[name], value != .null else { throw TokenError(.missingParameter, "the request body has no \"\(name)\"") }
        return try WebAuthnAssertionResponse(json: value)
    }

    /// A hosted page's `passkey` form field as an assertion response; `nil` when it is not one (a hostile form).
    static func assertion(formField field: String) -> WebAuthnAssertionResponse? {
        guard field.utf8.count <= 48 * 1024,
            let value = try? JSONValue(parsing: field, limits: JSONLimits(maxBytes: 48 * 1024, maxDepth: 4, maxTopLevelMembers: 16))
        else { return nil }
        return try? WebAuthnAssertionResponse(json: value)
    }
}

extension AuthServer {
    /// Whether app `appID` has the `passkey` provider (a passkey sign-in of its own).
    func signsInWithPasskeys(_ appID: String) -> Bool { loginMethods[appID]?.method(PasskeyLogin.self) != nil }
}
