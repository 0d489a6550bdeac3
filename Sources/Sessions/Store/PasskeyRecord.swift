/// A user's passkey as the store keeps it (`passkeys`, schema step 16; times in Unix seconds).
/// Found by its credential id within its app; deleting the user deletes it.
public struct PasskeyRecord: Sendable, Hashable {
    /// The credential id, base64url (WebAuthn's `id`).
    public var id: String
    /// The user's app: a lookup from another app does not find the row.
    public var app: String
    public var userID: String
    /// The name the user gave it (bounded by the route).
    public var name: String
    /// The credential's public key as a JWK (JSON text, its `alg` pinned).
    public var publicKey: String
    /// The JWS name of the key's algorithm (`ES256`, `EdDSA`, `RS256`).
    public var algorithm: String
    /// The signature counter of the last verified ceremony.
    public var signCount: Int64
    public var createdAt: Int64
    public var lastUsedAt: Int64?

    public init(
        id: String, app: String, userID: String, name: String, publicKey: String, algorithm: String, signCount: Int64,
        createdAt: Int64, lastUsedAt: Int64? = nil
    ) {
        self.id = id
        self.app = app
        self.userID = userID
        self.name = name
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
