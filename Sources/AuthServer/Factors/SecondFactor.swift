import Identity
import JOSE
import Sessions

/// A second factor: what a sign-in adds to its first method before anything is issued, at both
/// front doors (the App Services `…/local-userpass/mfa` step and the hosted login's second page),
/// which read its proof from their input and call its ``check(_:_:_:)`` over the one
/// ``PendingStep``. One type per factor, in one file of this folder, and one line in
/// ``SecondFactors/standard``: both doors then offer it.
protocol SecondFactor: Sendable {
    /// The method name an ``Authentication`` records for it.
    static var name: String { get }
    /// Its RFC 8176 `amr` value.
    static var amr: String { get }
    /// The members of the App Services step's body that carry its proof (the OpenAPI document's
    /// step body lists them).
    static var bodyMembers: [LoginBody.Member] { get }
    /// What the hosted page says when its proof is refused.
    static var pageRefusal: OIDCPages.LoginMessage { get }
    /// Its proof in the step's input; `nil` when the input carries none.
    /// - Throws: `invalid_parameter` or `missing_parameter` for a proof that cannot be one.
    static func proof(_ input: SecondFactorInput) throws -> SecondFactorProof?
    /// Checks `proof` for the step's user; when it is right, `step` is spent in the same
    /// transaction (of two right answers, one goes on).
    /// - Throws: `invalid_input` when the user no longer has the factor or the step was spent
    ///   meanwhile; `store_unavailable`.
    static func check(_ proof: SecondFactorProof, _ step: PendingStep, _ environment: FactorEnvironment) async throws -> MFACheck
}

/// What a second step received.
enum SecondFactorInput: Sendable {
    /// The JSON body of the App Services step.
    case body(RequestJSON)
    /// The hosted second page's form fields.
    case fields([String: String])
}

/// A factor's proof, as its type read it: only that type looks inside.
struct SecondFactorProof: Sendable {
    let factor: any SecondFactor.Type
    let value: any Sendable
}

/// What a factor's check needs of the server, given when the route group is made.
struct FactorEnvironment: Sendable {
    let sessions: SessionManager
    let passkeys: WebAuthnRelyingParty
}

/// The second factors the server offers.
enum SecondFactors {
    static let standard: [any SecondFactor.Type] = [TOTPFactor.self, PasskeyFactor.self]

    /// The one proof in `input`, from the factor that reads it. The App Services body must carry
    /// exactly one factor member.
    /// - Throws: `missing_parameter` (none), `invalid_parameter` (several, or a malformed one);
    ///   on the hosted page a missing proof is `nil`.
    static func proof(_ input: SecondFactorInput) throws -> SecondFactorProof? {
        if case .body(let body) = input {
            let members = standard.flatMap { $0.bodyMembers.map(\.name) }
            let sent = members.filter { body.object[$0].map { $0 != .null } ?? false }
            let list = members.map { "\"\($0)\"" }
            if sent.isEmpty { throw TokenError(.missingParameter, list.dropLast().joined(separator: ", ") + " or " + list.last! + " is required") }
            if sent.count > 1 { throw TokenError(.invalidParameter, "send one of " + list.dropLast().joined(separator: ", ") + " and " + list.last!) }
        }
        for factor in standard {
            if let proof = try factor.proof(input) { return proof }
        }
        return nil
    }

    /// Checks `proof` for `step` and, when it is right, the sign-in's ``Authentication``: the
    /// first step's methods and the factor's.
    static func finish(_ proof: SecondFactorProof, _ step: PendingStep, _ environment: FactorEnvironment) async throws
        -> (MFACheck, Authentication?)
    {
        let check = try await proof.factor.check(proof, step, environment)
        guard case .accepted = check else { return (check, nil) }
        let methods = step.pending.methods + [proof.factor.name]
        return (check, Authentication(userID: step.pending.userID, methods: methods, time: environment.sessions.configuration.clock.now()))
    }
}
