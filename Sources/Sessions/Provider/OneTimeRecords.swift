import Foundation

/// Typed records kept as one-time tokens (a web sign-in's flow, a link's confirmation): the
/// record's JSON through ``RecordPayload`` as the payload, what it belongs to as the subject. The
/// token is the record's name, shown once to whoever resumes it.
extension SessionStore {
    /// Stores `record` as a token of `purpose` for `app` and `subject`, for `lifetime` seconds
    /// from `created`, in one transaction.
    /// - Returns: the token that names it.
    /// - Throws: `internal_error` (random generator), `store_unavailable`.
    public func storeRecord(
        _ record: some Encodable & Sendable, purpose: OneTimeTokenPurpose, app: String, subject: String, created: Int64, lifetime: Int64
    ) async throws -> String {
        let payload = try RecordPayload.encode(record)
        return try await transaction { tx in
            try await tx.issueOneTimeToken(
                purpose: purpose, app: app, subject: subject, payload: payload, createdAt: created, expiresAt: created + lifetime
            ).token
        }
    }

    /// The live (unused, unexpired) record `token` names, read without spending it, with its
    /// subject; `nil` when it is unknown, used, expired, or not a `T` that `accept` takes.
    /// - Throws: `store_unavailable`.
    public func liveRecord<T: Decodable>(
        _ type: T.Type, token: String, purpose: OneTimeTokenPurpose, app: String, at time: Int64, accept: (T) -> Bool = { _ in true }
    ) async throws -> (subject: String, record: T)? {
        guard let stored = try await read({ tx in try await tx.lookUpOneTimeToken(token, purpose: purpose, app: app) }),
            stored.state(at: time) == .live, let record = RecordPayload.decode(type, stored.payload), accept(record)
        else { return nil }
        return (stored.subject, record)
    }

    /// Ends the record `token` names when it is `subject`'s and a `T` that `accept` takes (else it
    /// is left as it was): of two calls, one gets the record; `nil` for the other and for anything else.
    /// - Throws: `store_unavailable`.
    public func consumeRecord<T: Decodable & Sendable>(
        _ type: T.Type, token: String, purpose: OneTimeTokenPurpose, app: String, subject: String, at time: Int64,
        accept: @escaping @Sendable (T) -> Bool = { _ in true }
    ) async throws -> T? {
        try await transaction { tx in
            guard let stored = try await tx.lookUpOneTimeToken(token, purpose: purpose, app: app), stored.subject == subject,
                let record = RecordPayload.decode(type, stored.payload), accept(record),
                try await tx.consumeOneTimeToken(token, purpose: purpose, app: app, at: time).consumed != nil
            else { return nil }
            return record
        }
    }

    /// Spends the token `token` of `purpose` and `app`: `true` for the one call that did.
    /// - Throws: `store_unavailable`.
    public func spendRecord(token: String, purpose: OneTimeTokenPurpose, app: String, at time: Int64) async throws -> Bool {
        try await transaction { tx in try await tx.consumeOneTimeToken(token, purpose: purpose, app: app, at: time).consumed != nil }
    }
}
