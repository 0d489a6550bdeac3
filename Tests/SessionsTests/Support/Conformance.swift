import Foundation
import Identity
import JOSE
@_spi(Testing) @testable import Sessions

/// Shared helpers of the conformance suite; everything here takes `some SessionStore`.
enum Conformance {
    static func manager(_ store: some SessionStore, _ clock: TestClock, grace: Int64 = 10) -> SessionManager {
        SessionManager(store: store, configuration: .test(clock, grace: grace))
    }

    /// A user's first sign-in (alice by default; created if needed): the token pair of a new session.
    static func firstPair(_ sessions: SessionManager, user: String = "alice") async throws -> TokenPair {
        _ = try await sessions.ensureUser(id: user)
        return try await sessions.issueTokens(userID: user)
    }

    /// The record of a refresh token, looked up by base64url(SHA-256(token)).
    static func record(_ store: some SessionStore, of token: String) async throws -> RefreshTokenRecord? {
        let hash = Base64URL.encode(SHA2.sha256(Array(token.utf8)))
        return try await store.transaction { tx in try await tx.refreshToken(hash: hash) }
    }

    static func session(_ store: some SessionStore, id: String) async throws -> SessionRecord? {
        try await store.transaction { tx in try await tx.session(id: id, forUpdate: false) }
    }

    static func identity(_ provider: String, _ subject: String, email: String? = nil) -> Identity {
        Identity(provider: provider, subject: subject, email: email, emailVerified: email != nil)
    }

    /// The code of the TokenError `body` throws, or nil when it does not throw.
    static func code<T>(_ body: () async throws -> T) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let e as TokenError {
            return e.code.rawValue
        } catch {
            return "\(type(of: error))"
        }
    }
}
