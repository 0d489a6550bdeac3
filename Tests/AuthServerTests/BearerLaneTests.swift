import Foundation
import Identity
import JOSE
import NIOHTTP1
import Testing

@testable import AuthServer

/// The contract's "The App Services client protocol": the bearer of an `access` row is an App Services
/// session's own. An OpenID Connect client's access token has the app as `aud` too, so before this
/// check a relying party the user allowed `openid` only could read the profile, end the user's
/// sessions, register a passkey, turn TOTP on and delete the account with it. Every `access` and
/// `optionalAccess` row of the route table is walked with a relying party's tokens (a confidential
/// client's and a public SPA's: 401 `InvalidSession`, nothing changed) and with the user's own
/// (never 401), on both stores.
@Suite("Access rows take App Services sessions' tokens only", .serialized)
struct BearerLaneTests {
    /// The rows whose bearer is an access token, the user's deletion last (it ends the walk).
    static var accessRows: [RouteTable.Row] {
        let rows = RouteTable.rows.filter { $0.bearer == .access || $0.bearer == .optionalAccess }
        return rows.filter { $0.name != "deleteUser" } + rows.filter { $0.name == "deleteUser" }
    }

    /// The row's path with its parameters filled in; `nil` (and a recorded issue) for a parameter
    /// this walk does not know, so that a new row is thought about here.
    static func path(_ row: RouteTable.Row, id: String) -> String? {
        var parts: [String] = []
        for part in row.path.split(separator: "/", omittingEmptySubsequences: false) {
            switch part {
            case ":app": parts.append("myapp")
            case ":provider": parts.append("anon-user")
            case ":id": parts.append(id)
            case let p where p.hasPrefix(":"):
                Issue.record("\(row.name): the walk does not know the parameter \(p)")
                return nil
            default: parts.append(String(part))
            }
        }
        let path = parts.joined(separator: "/")
        return row.bearer == .optionalAccess ? path + "?link=true" : path
    }

    static func method(_ row: RouteTable.Row) -> HTTPMethod {
        switch row.method {
        case .get: .GET
        case .post: .POST
        case .put: .PUT
        case .delete: .DELETE
        default: .PATCH
        }
    }

    static func send(_ s: LiveServer, _ row: RouteTable.Row, id: String, bearer: String) async throws -> LiveServer.Answer? {
        guard let path = path(row, id: id) else { return nil }
        let method = method(row)
        return try await s.call(method, path, body: method == .POST ? "{}" : nil, bearer: bearer)
    }

    @Test("a relying party's access token is 401 InvalidSession on every access row, the user's own is served", arguments: StoreKind.available)
    func everyAccessRow(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let sessions = try #require(s.server.apps["myapp"]).sessions
            let identity = Identity(provider: "anon-user", subject: UUID().uuidString)
            let own = try await sessions.signIn(with: identity, clientID: "myapp")
            let user = own.userID
            // A third-party site allowed `openid` only, and a public SPA of the same app.
            var relyingParties: [(String, String)] = []
            for client in ["poster", "spa"] {
                let code = try await OIDCTokenFixture.code(s, client: client, user: user, scope: "openid")
                let tokens = try await OIDCTokenFixture.exchange(s, code, client: client)
                #expect(tokens.status == 200, "\(tokens.body)")
                relyingParties.append((client, try #require(tokens["access_token"])))
            }
            #expect(Self.accessRows.count >= 14, "the walk found \(Self.accessRows.count) access rows")
            for (client, token) in relyingParties {
                // Still good where it belongs: the relying party's userinfo.
                #expect(try await s.call(.GET, "/oauth/userinfo", bearer: token).status == 200, "\(client): userinfo")
                for row in Self.accessRows {
                    // The most harmful id for `:id`: the user's own App Services session.
                    guard let answer = try await Self.send(s, row, id: own.tokens.sessionID, bearer: token) else { continue }
                    #expect(answer.status == 401, "\(client) on \(row.name): \(answer.status) \(answer.body.prefix(200))")
                    #expect(answer.errorCode == "InvalidSession", "\(client) on \(row.name): \(answer.body.prefix(200))")
                }
            }
            // Nothing of the account changed: the user, its session, no factor.
            let profile = try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: own.tokens.accessToken)
            #expect(profile.status == 200 && profile["user_id"] == user, "\(profile.body.prefix(200))")
            let mfa = try await s.call(.GET, LiveServer.base + "/auth/mfa", bearer: own.tokens.accessToken)
            #expect(mfa.status == 200 && mfa.object["totp"] == .bool(false), "\(mfa.body.prefix(200))")
            #expect(try await s.call(.GET, LiveServer.base + "/auth/passkeys", bearer: own.tokens.accessToken).body == "[]")
            // The user's own token passes the bearer step of every row (what the handler then says is its own).
            for row in Self.accessRows {
                guard let answer = try await Self.send(s, row, id: "0123456789abcdef01234567", bearer: own.tokens.accessToken) else { continue }
                #expect(answer.status != 401 || answer.errorCode != "InvalidSession", "own token on \(row.name): \(answer.body.prefix(200))")
                #expect(answer.status < 500, "own token on \(row.name): \(answer.status) \(answer.body.prefix(200))")
            }
            #expect(try await s.call(.GET, LiveServer.base + "/auth/profile", bearer: own.tokens.accessToken).status == 401, "deleted last")
        }
    }
}
