import Foundation
import Testing

@testable import AuthServer

/// `post_logout_redirect_uri` is compared exactly, string for string (the contract's "Logout"): a
/// loopback URI registered without a port is not matched by one with a port (the RFC 8252 §7.3 rule
/// is for redirect URIs of native apps' authorization answers, not for where a logout lands).
@Suite struct PostLogoutURITests {
    static let extra = #"""
        "clients": { "spa": { "app": "myapp", "redirect_uris": ["http://127.0.0.1/cb"],
                              "post_logout_redirect_uris": ["http://127.0.0.1/bye", "http://localhost:5173/bye"] } },
        """#

    @Test("exact matches land there; a port added or dropped, a trailing slash, another case: the 400 page")
    func exact() async throws {
        try await LiveServer.with(.sqlite, extra: Self.extra) { s in
            func logout(_ uri: String) async throws -> LiveServer.Answer {
                try await OIDCTokenFixture.getNoRedirect(
                    s, "/oauth/logout" + OIDCFixture.query([("client_id", "spa"), ("post_logout_redirect_uri", uri), ("state", "st")]))
            }
            for uri in ["http://127.0.0.1/bye", "http://localhost:5173/bye"] {
                let done = try await logout(uri)
                #expect(done.status == 302 && done.header("Location") == uri + "?state=st", "\(uri): \(done.status) \(done.header("Location") ?? "")")
            }
            for uri in ["http://127.0.0.1:5173/bye", "http://localhost/bye", "http://localhost:5174/bye", "http://127.0.0.1/bye/", "http://LOCALHOST:5173/bye"] {
                let refused = try await logout(uri)
                #expect(refused.status == 400 && refused.header("Location") == nil, "\(uri): \(refused.status)")
            }
        }
    }
}
