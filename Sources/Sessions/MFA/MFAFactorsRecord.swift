/// A user's second factors as the store keeps them (`mfa_factors`, schema step 15; times in Unix
/// seconds). One row per user, in the user's app; deleting the user deletes it.
public struct MFAFactorsRecord: Sendable, Hashable {
    public var userID: String
    /// The user's app: a lookup from another app does not find the row.
    public var app: String
    /// The TOTP secret sealed under the master key (context: app and user id); `nil` without TOTP.
    public var sealedTOTPSecret: String?
    /// When a code confirmed the secret; `nil` while the enrolment is pending.
    public var totpConfirmedAt: Int64?
    /// The last time step a TOTP code was accepted for: a code of this step or an older one is refused.
    public var totpLastStep: Int64?
    /// The unspent recovery codes' digests (``RecoveryCodes/digest(of:salt:)``, base64url).
    public var recoveryCodes: [String]
    /// Wrong codes in a row since the last success or lock.
    public var failedAttempts: Int
    /// Until when every route checking a code refuses this user (429).
    public var lockedUntil: Int64?
    public var updatedAt: Int64

    public init(
        userID: String, app: String, sealedTOTPSecret: String? = nil, totpConfirmedAt: Int64? = nil, totpLastStep: Int64? = nil,
        recoveryCodes: [String] = [], failedAttempts: Int = 0, lockedUntil: Int64? = nil, updatedAt: Int64
    ) {
        self.userID = userID
        self.app = app
        self.sealedTOTPSecret = sealedTOTPSecret
        self.totpConfirmedAt = totpConfirmedAt
        self.totpLastStep = totpLastStep
        self.recoveryCodes = recoveryCodes
        self.failedAttempts = failedAttempts
        self.lockedUntil = lockedUntil
        self.updatedAt = updatedAt
    }

    /// Whether TOTP is on (confirmed).
    public var totpEnabled: Bool { sealedTOTPSecret != nil && totpConfirmedAt != nil }

    /// The recovery codes column: digests separated by spaces.
    public var recoveryCodesText: String { recoveryCodes.joined(separator: " ") }

    /// The digests of a stored recovery codes column.
    public static func recoveryCodes(fromText text: String) -> [String] { text.split(separator: " ").map(String.init) }
}
