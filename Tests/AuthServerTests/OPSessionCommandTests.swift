import CLIHarness
import Foundation
import JOSE
import Sessions
import Testing

@testable import AuthServer

/// An operator's view of the OpenID Provider's browser sessions: `tokentool user op-sessions`
/// lists them from the server's store, `tokentool user end-op-session` signs one browser out and
/// revokes what relying parties got through it, while the server runs on that store.
@Suite("tokentool user op-sessions | end-op-session")
struct OPSessionCommandTests {
    @Test("lists a user's OP browser sessions; ending one signs that browser out and its relying party's tokens stop working", arguments: StoreKind.available)
    func listAndEnd(kind: StoreKind) async throws {
        try await OIDCTokenFixture.with(kind) { s in
            let user = try await OIDCTokenFixture.user(s)
            // Two browsers: the first one's code becomes a relying party's tokens.
            let first = try await OIDCTokenFixture.code(s, user: user)
            let second = try await OIDCTokenFixture.code(s, user: user)
            #expect(first.sid != second.sid)
            let tokens = try await OIDCTokenFixture.exchange(s, first)
            #expect(tokens.status == 200, "\(tokens.body)")
            let refresh = try #require(tokens["refresh_token"]), access = try #require(tokens["access_token"])
            let env: [String: String?] = ["TOKENTOOL_STORE": nil, "TOKENTOOL_STORE_FILE": nil, "TOKENTOOL_MASTER_KEY_FILE": nil]
            func tokentool(_ args: [String]) async throws -> CLI.Result {
                try await CLI.detached { try CLI.tokentool(args + ["--store", s.server.config.store], environment: env) }
            }

            let listed = try await tokentool(["user", "op-sessions", user, "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let sessions = try #require(try JSONValue(parsing: listed.stdout).objectValue?["op_sessions"]?.arrayValue)
            #expect(Set(sessions.compactMap { $0.objectValue?["sid"]?.stringValue }) == [first.sid, second.sid])
            #expect(sessions.allSatisfy { $0.objectValue?["amr"] == ["pwd"] && $0.objectValue?["auth_time"]?.intValue != nil })
            let text = try await tokentool(["user", "op-sessions", user])
            #expect(text.stdout.hasPrefix("user \(user): 2 live OP browser sessions\n") && text.stdout.contains("  sid \(first.sid) signed in "))

            let ended = try await tokentool(["user", "end-op-session", user, first.sid, "--json"])
            #expect(ended.status == 0, "\(ended.stderr)")
            #expect(try JSONValue(parsing: ended.stdout) == .object(["ended": .string(first.sid), "user_id": .string(user), "sessions_revoked": 1]))
            // That browser is signed out; the other is not. The relying party's tokens are refused.
            let now = OIDCTokenFixture.now
            #expect(try await s.server.store.opSession(token: first.opToken, app: "myapp", at: now) == nil)
            #expect(try await s.server.store.opSession(token: second.opToken, app: "myapp", at: now) != nil)
            let refreshed = try await s.form(
                "/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh)], headers: [OIDCTokenFixture.basic()])
            #expect(refreshed.status == 400 && refreshed["error"] == "invalid_grant", "\(refreshed.body)")
            let userinfo = try await s.call(.GET, "/oauth/userinfo", bearer: access)
            #expect(userinfo.status == 401, "\(userinfo.body)")
            let after = try await tokentool(["user", "op-sessions", user, "--json"])
            #expect(try JSONValue(parsing: after.stdout).objectValue?["op_sessions"]?.arrayValue?.count == 1)

            // Nothing to end: exit 2 with the reason; an unknown user: exit 1.
            let again = try await tokentool(["user", "end-op-session", user, first.sid])
            #expect(again.status == 2 && again.stderr.contains("no live OP browser session"), "\(again.stderr)")
            let unknown = try await tokentool(["user", "op-sessions", "no-such-user"])
            #expect(unknown.status == 1 && unknown.stderr.contains("user_not_found"))
        }
    }
}
