import Foundation
import JOSE

/// A sign-in whose first step passed and that waits for its second factor, at either front door:
/// the App Services login (`mfa_token`, resumed as the login's device) and the hosted login page
/// (resumed in its flow). It is kept as one single-use token (``pendingAuthenticationSeconds``)
/// that the second step spends with the factor's proof, in one transaction.
public struct PendingAuthentication: Sendable, Hashable {
    /// Where the sign-in goes on once the second factor is right.
    public enum Resume: Sendable, Hashable {
        /// An App Services login: the device JSON it was made from.
        case device(json: String)
        /// A hosted login flow: its handle.
        case hostedFlow(handle: String)
    }

    /// The user signing in.
    public var userID: String
    /// The login methods of the first step (an ``Authentication``'s names, as `local-userpass`).
    public var methods: [String]
    public var resume: Resume

    public init(userID: String, methods: [String], resume: Resume) {
        self.userID = userID
        self.methods = methods
        self.resume = resume
    }

    /// The handle of the hosted flow it resumes; `nil` for an App Services login.
    public var flowHandle: String? {
        if case .hostedFlow(let handle) = resume { return handle }
        return nil
    }
}

/// A live ``PendingAuthentication`` with the token that stands for it.
public struct PendingStep: Sendable, Hashable {
    /// The single-use token the client holds (`mfa_token`).
    public let token: String
    public let pending: PendingAuthentication
    /// The purpose its row was written under: ``OneTimeTokenPurpose/pendingAuthentication``, or
    /// an earlier release's purpose for a row still live.
    let purpose: OneTimeTokenPurpose
}

extension OneTimeTokenPurpose {
    /// A ``PendingAuthentication``; subject: the user; payload: ``PendingAuthentication/payload``.
    public static let pendingAuthentication = OneTimeTokenPurpose(rawValue: "pending-auth")
    /// Earlier releases' App Services second step; payload: the login's device JSON. Read, never written.
    static let legacyLoginSecondStep = OneTimeTokenPurpose(rawValue: "mfa-login")
    /// Earlier releases' hosted second step; payload: the flow's handle, a space, the first step's
    /// methods comma-separated. Read, never written.
    static let legacyHostedSecondStep = OneTimeTokenPurpose(rawValue: "op-mfa")
}

extension PendingAuthentication {
    /// The stored form, through ``RecordPayload``: version 1.
    private struct Stored: Codable {
        var v = 1
        var methods: [String]
        var device: String?
        var flow: String?
    }

    /// The payload of its token's row.
    /// - Throws: what `JSONEncoder` throws (nothing for these members).
    func payload() throws -> String {
        switch resume {
        case .device(let json): return try RecordPayload.encode(Stored(methods: methods, device: json))
        case .hostedFlow(let handle): return try RecordPayload.encode(Stored(methods: methods, flow: handle))
        }
    }

    /// The pending authentication of a row of `purpose`; `nil` when its payload is not one.
    init?(_ record: OneTimeTokenRecord) {
        switch record.purpose {
        case .pendingAuthentication:
            guard let stored = RecordPayload.decode(Stored.self, record.payload), stored.v == 1 else { return nil }
            if let device = stored.device {
                self.init(userID: record.subject, methods: stored.methods, resume: .device(json: device))
            } else if let flow = stored.flow {
                self.init(userID: record.subject, methods: stored.methods, resume: .hostedFlow(handle: flow))
            } else {
                return nil
            }
        case .legacyLoginSecondStep:
            self.init(userID: record.subject, methods: ["local-userpass"], resume: .device(json: record.payload))
        case .legacyHostedSecondStep:
            let parts = record.payload.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard let handle = parts.first, !handle.isEmpty else { return nil }
            let methods = parts.dropFirst().first.map { $0.split(separator: ",").map(String.init) } ?? []
            self.init(userID: record.subject, methods: methods, resume: .hostedFlow(handle: String(handle)))
        default:
            return nil
        }
    }
}

extension SessionManager {
    /// Seconds a pending authentication lives (5 minutes).
    public static let pendingAuthenticationSeconds: Int64 = 5 * 60

    /// Stores `pending` and returns its token. With `derived` (a token the caller derived from a
    /// secret of its own, as the hosted page does from its flow), a live row of that token is kept
    /// as it is and the same token returned, so showing a page again stores nothing; a spent or
    /// expired one gives way to a new random token.
    /// - Throws: `store_unavailable`, `internal_error` (random generator).
    public func beginPendingAuthentication(_ pending: PendingAuthentication, derived: String? = nil) async throws -> String {
        let (app, now) = (configuration.app, configuration.now)
        let payload = try pending.payload()
        let expires = now + Self.pendingAuthenticationSeconds
        return try await store.transaction { tx in
            if let derived {
                switch try await tx.lookUpOneTimeToken(derived, purpose: .pendingAuthentication, app: app)?.state(at: now) {
                case .live?: return derived
                case nil:
                    try await tx.insertOneTimeToken(
                        OneTimeTokenRecord(
                            purpose: .pendingAuthentication, hash: OneTimeToken.hash(derived), app: app, subject: pending.userID, payload: payload,
                            createdAt: now, expiresAt: expires))
                    return derived
                default: break  // spent or expired under this secret: a new, random one
                }
            }
            return try await tx.issueOneTimeToken(
                purpose: .pendingAuthentication, app: app, subject: pending.userID, payload: payload, createdAt: now, expiresAt: expires
            ).token
        }
    }

    /// The live pending authentication `token` stands for (of this release or a row an earlier
    /// one wrote), read without spending it; `nil` when it is unknown, used or expired.
    /// - Throws: `store_unavailable`.
    public func pendingStep(_ token: String) async throws -> PendingStep? {
        let (app, now) = (configuration.app, configuration.now)
        let token = String(token.prefix(128))
        return try await store.read { tx in
            for purpose in [OneTimeTokenPurpose.pendingAuthentication, .legacyLoginSecondStep, .legacyHostedSecondStep] {
                guard let record = try await tx.lookUpOneTimeToken(token, purpose: purpose, app: app) else { continue }
                guard record.state(at: now) == .live, let pending = PendingAuthentication(record) else { return nil }
                return PendingStep(token: token, pending: pending, purpose: purpose)
            }
            return nil
        }
    }

    /// Spends `step` inside the caller's transaction (a second factor's check, which runs this
    /// when the proof is right): of two right answers, one goes on.
    /// - Throws: `invalid_input` when the step was spent or expired meanwhile (rolling the check back).
    public func spend(_ step: PendingStep, _ tx: any SessionStoreTransaction) async throws {
        guard case .consumed = try await tx.consumeOneTimeToken(step.token, purpose: step.purpose, app: configuration.app, at: configuration.now)
        else { throw TokenError(.invalidInput, "the sign-in's second step was already used or has expired; sign in again") }
    }
}
