/// What a user allowed an OpenID Connect client (the consent page's answer), kept so that the
/// page is not shown again for the same scopes (schema step 14, table `consents`).
public struct ConsentRecord: Sendable, Hashable {
    public var userID: String
    /// The client id (a `clients` entry's name).
    public var clientID: String
    /// Every scope allowed so far, in the order first allowed.
    public var scopes: [String]
    public var createdAt: Int64
    /// When the set last grew.
    public var updatedAt: Int64

    public init(userID: String, clientID: String, scopes: [String], createdAt: Int64, updatedAt: Int64) {
        self.userID = userID
        self.clientID = clientID
        self.scopes = scopes
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The scopes as the table keeps them: one space between each.
    public var storedScopes: String { scopes.joined(separator: " ") }

    /// The scopes of a stored value.
    public static func scopes(stored: String) -> [String] { stored.split(separator: " ").map(String.init) }
}
