import Foundation
import Sessions

/// A TOTP code from an authenticator app (RFC 6238), or one of the user's recovery codes
/// (`SessionManager.checkMFA`, under the factors' shared lock). Enrolled and removed by the
/// `…/auth/mfa/totp` routes (Routes/MFA.swift).
struct TOTPFactor: SecondFactor {
    static let name = "totp"
    static let amr = "otp"
    static let bodyMembers = [LoginBody.Member("code", note: "a TOTP code"), LoginBody.Member("recovery_code", note: "one of the recovery codes")]
    static let pageRefusal = OIDCPages.LoginMessage.wrongCode

    static func proof(_ input: SecondFactorInput) throws -> SecondFactorProof? {
        let code: MFACode
        switch input {
        case .body(let body):
            if let c = try body.optionalString("code", maxBytes: 64) {
                code = .totp(c)
            } else if let r = try body.optionalString("recovery_code", maxBytes: 64) {
                code = .recovery(r)
            } else {
                return nil
            }
        case .fields(let fields):
            // One field for both: six digits are a TOTP code, anything else a recovery code.
            let text = String((fields[OIDCPages.codeField] ?? "").prefix(64)).trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { return nil }
            code = .either(text)
        }
        return SecondFactorProof(factor: Self.self, value: code)
    }

    static func check(_ proof: SecondFactorProof, _ step: PendingStep, _ environment: FactorEnvironment) async throws -> MFACheck {
        guard let code = proof.value as? MFACode else { return .refused }
        let sessions = environment.sessions
        return try await sessions.checkMFA(userID: step.pending.userID, code: code) { _, tx in try await sessions.spend(step, tx) }
    }
}
