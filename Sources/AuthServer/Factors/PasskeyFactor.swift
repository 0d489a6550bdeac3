import Identity
import JOSE
import Sessions

/// A passkey's assertion after the first step: the same credential that can sign in alone, over a
/// challenge bound to the pending step (`SessionManager.passkeySecondFactorOptions`), under the
/// factors' shared lock. Registered and removed by the `…/auth/passkeys` routes (Routes/Passkeys.swift).
struct PasskeyFactor: SecondFactor {
    static let name = PasskeyLogin.name
    static let amr = "hwk"
    static let bodyMembers = [LoginBody.Member("passkey", .object, note: "a WebAuthn get() response over the mfa/passkey/options challenge")]
    static let pageRefusal = OIDCPages.LoginMessage.passkeyRefused

    static func proof(_ input: SecondFactorInput) throws -> SecondFactorProof? {
        let response: WebAuthnAssertionResponse
        switch input {
        case .body(let body):
            guard let value = body.object["passkey"], value != .null else { return nil }
            response = try PasskeyLogin.assertion(body, "passkey")
        case .fields(let fields):
            guard let field = fields[OIDCPages.passkeyField], !field.isEmpty else { return nil }
            guard let parsed = PasskeyLogin.assertion(formField: field) else {
                throw TokenError(.invalidParameter, "the passkey field is not an assertion")
            }
            response = parsed
        }
        return SecondFactorProof(factor: Self.self, value: response)
    }

    static func check(_ proof: SecondFactorProof, _ step: PendingStep, _ environment: FactorEnvironment) async throws -> MFACheck {
        guard let response = proof.value as? WebAuthnAssertionResponse else { return .refused }
        let sessions = environment.sessions
        return try await sessions.checkPasskeySecondFactor(
            userID: step.pending.userID, binding: step.token, response: response, relyingParty: environment.passkeys
        ) { tx in try await sessions.spend(step, tx) }
    }
}
