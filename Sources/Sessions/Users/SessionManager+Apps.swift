import JOSE

extension SessionManager {
    /// Gives the users of the empty app (rows written before schema step 9, or by a library or
    /// the CLI) to a server's apps, in one transaction: a user whose most recently used session
    /// has an app's id as its client id joins that app, and when `apps` has exactly one app every
    /// other such user joins it too. Their identities and accounts follow them (one whose key the
    /// app already holds stays behind); their sessions in the other apps end. With several apps,
    /// users of the empty app that no session names stay there: no app finds them.
    /// - Returns: how many users joined an app.
    /// - Throws: `store_unavailable`.
    public static func adoptLegacyUsers(store: any SessionStore, apps: [String], at time: Int64) async throws -> Int {
        let ids = apps.filter { !$0.isEmpty }.sorted()
        guard !ids.isEmpty else { return 0 }
        return try await store.transaction { tx in
            var moved = 0
            for app in ids { moved += try await tx.adoptLegacyUsers(app: app, bySessions: true, apps: ids, at: time) }
            if ids.count == 1 { moved += try await tx.adoptLegacyUsers(app: ids[0], bySessions: false, apps: ids, at: time) }
            return moved
        }
    }
}
