import Foundation
public import Identity
import JOSE

extension SessionManager {
    /// The result of ``signIn(with:clientID:)``.
    public struct SignIn: Sendable {
        public var userID: String
        /// `true` when this sign-in created the user.
        public var created: Bool
        public var tokens: TokenPair
    }

    /// Finds the user of `identity`, creating one on first sign-in, and issues a token pair in a
    /// new session.
    /// - Throws: `invalid_input` for an empty provider or subject; `user_disabled`; `store_unavailable`.
    public func signIn(with identity: Identity, clientID: String? = nil, device: String? = nil) async throws -> SignIn {
        let (user, created) = try await findOrCreateUser(for: identity)
        let tokens = try await issueTokens(userID: user.id, clientID: clientID, device: device)
        return SignIn(userID: user.id, created: created, tokens: tokens)
    }

    /// The user owning `(app, identity.provider, identity.issuer, identity.subject)` in this
    /// manager's ``SessionConfiguration/app``, or a new user of that app owning it.
    ///
    /// Concurrent first sign-ins with one identity create one user: the identity's uniqueness
    /// decides, and the loser's transaction is rolled back and answered with the winner.
    /// - Throws: `invalid_input`, `store_unavailable`.
    public func findOrCreateUser(for identity: Identity) async throws -> (user: UserRecord, created: Bool) {
        try Self.checkIdentity(identity)
        let now = configuration.now
        let newID = try Self.newUserID()
        let app = configuration.app
        let record = try Self.identityRecord(identity, userID: newID, now: now, app: app)
        for _ in 0..<3 {
            do {
                return try await store.transaction { tx in
                    if let existing = try await tx.identity(
                        app: app, provider: identity.provider, issuer: identity.issuer ?? "", subject: identity.subject)
                    {
                        guard let user = try await tx.user(id: existing.userID) else {
                            throw TokenError(.storeUnavailable, "identity refers to a missing user")
                        }
                        return (user, false)
                    }
                    let user = UserRecord(id: newID, createdAt: now, app: app)
                    try await tx.insertUser(user)
                    guard try await tx.insertIdentity(record) else { throw RaceLost() }
                    return (user, true)
                }
            } catch is RaceLost {
                continue  // another sign-in created it between our read and insert; read again
            }
        }
        throw TokenError(.storeUnavailable, "could not settle a concurrent first sign-in")
    }

    /// Creates a user of this manager's app with the given id unless it exists.
    /// - Returns: the user and whether this call created it.
    /// - Throws: `invalid_input` for an id that is empty, longer than 255 bytes or holds control
    ///   characters (NUL included: PostgreSQL text cannot hold it), or the id of another app's
    ///   user; `store_unavailable`.
    public func ensureUser(id: String) async throws -> (user: UserRecord, created: Bool) {
        guard Self.isStorableID(id, maxBytes: 255) else {
            throw TokenError(.invalidInput, "user id must be 1…255 bytes without control characters")
        }
        let now = configuration.now
        let app = configuration.app
        return try await store.transaction { tx in
            if let user = try await tx.user(id: id) {
                guard user.app == app else { throw TokenError(.invalidInput, "that user id belongs to another app") }
                return (user, false)
            }
            let user = UserRecord(id: id, createdAt: now, app: app)
            try await tx.insertUser(user)
            return (user, true)
        }
    }

    /// Links another identity to an existing user of this manager's app.
    /// - Throws: `user_not_found` (also for another app's user); `identity_in_use` when the
    ///   identity belongs to another user (linking it again to its own user is not an error).
    public func link(_ identity: Identity, to userID: String) async throws {
        try Self.checkIdentity(identity)
        guard Self.isStorableID(userID, maxBytes: 255) else { throw TokenError(.userNotFound, "no user has that id") }
        let app = configuration.app
        let record = try Self.identityRecord(identity, userID: userID, now: configuration.now, app: app)
        try await store.transaction { tx in
            guard try await tx.user(id: userID)?.app == app else { throw TokenError(.userNotFound, "no user has id \"\(userID.prefix(64))\"") }
            if try await tx.insertIdentity(record) { return }
            let owner = try await tx.identity(app: app, provider: identity.provider, issuer: identity.issuer ?? "", subject: identity.subject)
            if owner?.userID == userID { return }
            throw TokenError(.identityInUse, "the \(identity.provider.prefix(32)) identity already belongs to another user")
        }
    }

    /// A user's identities, oldest first.
    public func identities(of userID: String) async throws -> [IdentityRecord] {
        guard Self.isStorableID(userID, maxBytes: 255) else { return [] }
        return try await store.read { tx in try await tx.identities(userID: userID) }
    }

    /// The user with `id`, if any.
    public func user(id: String) async throws -> UserRecord? {
        guard Self.isStorableID(id, maxBytes: 255) else { return nil }
        return try await store.transaction { tx in try await tx.user(id: id) }
    }

    /// The email of the user's email/password account, if it has one.
    public func accountEmail(of userID: String) async throws -> String? {
        guard Self.isStorableID(userID, maxBytes: 255) else { return nil }
        return try await store.read { tx in try await tx.account(userID: userID) }?.email
    }

    /// A user's sessions, live or not, until purged.
    public func sessions(of userID: String) async throws -> [SessionRecord] {
        guard Self.isStorableID(userID, maxBytes: 255) else { return [] }
        return try await store.transaction { tx in try await tx.sessions(userID: userID) }
    }

    static func checkIdentity(_ identity: Identity) throws {
        guard isStorableID(identity.provider, maxBytes: 64) else {
            throw TokenError(.invalidInput, "identity provider must be 1…64 bytes without control characters")
        }
        guard isStorableID(identity.subject, maxBytes: 255) else {
            throw TokenError(.invalidInput, "identity subject must be 1…255 bytes without control characters")
        }
        if let issuer = identity.issuer, !isStorableID(issuer, maxBytes: 2048) {
            throw TokenError(.invalidInput, "identity issuer must be 1…2048 bytes without control characters")
        }
    }

    /// What a user id, identity provider or subject may be: 1…`maxBytes` bytes, no control
    /// characters. Creating one that is not is `invalid_input`; looking one up finds nothing
    /// without asking the store, so both stores answer alike (PostgreSQL would fail on a NUL).
    static func isStorableID(_ s: String, maxBytes: Int) -> Bool {
        !s.isEmpty && s.utf8.count <= maxBytes && !s.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    static func identityRecord(_ identity: Identity, userID: String, now: Int64, app: String) throws -> IdentityRecord {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let profile = String(decoding: try encoder.encode(identity), as: UTF8.self)
        return IdentityRecord(
            provider: identity.provider, issuer: identity.issuer ?? "", subject: identity.subject, userID: userID, email: identity.email,
            emailVerified: identity.emailVerified, profileJSON: profile, createdAt: now, app: app)
    }

    static func newUserID() throws -> String { try RandomID.make() }
}

private struct RaceLost: Error {}
