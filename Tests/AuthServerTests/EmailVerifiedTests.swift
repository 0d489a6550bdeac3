import Foundation
import JOSE
import Testing

@testable import AuthServer

/// `email_verified` says whether the address was proven (the contract's "ID token"): false for an
/// account that `auto_confirm` let sign in (no mail ever reached it), true once a mailed link was
/// used or a reset completed with its mailed token; in the ID token and in userinfo. Both stores.
@Suite struct EmailVerifiedTests {
    static func claims(_ s: LiveServer, _ b: OIDCBrowser, password: String) async throws -> ClaimSet {
        let (url, csrf, _) = try await OIDCLoginPageTests.openLogin(b, scope: "openid email")
        let answer = try await b.post(url, [("csrf", csrf), ("email", "ann@example.com"), ("password", password)])
        return try await OIDCTokenFixture.idTokenClaims(s, answer)
    }

    @Test("auto_confirm: email_verified false until a completed reset proves the address", arguments: StoreKind.available)
    func autoConfirmIsNoProof(kind: StoreKind) async throws {
        try await OIDCFixture.with(kind) { s in
            try await OIDCFixture.register(s, "ann@example.com")
            try await OIDCBrowser.with(s) { b in
                let before = try await Self.claims(s, b, password: OIDCFixture.password)
                #expect(before["email"] == "ann@example.com" && before["email_verified"] == false, "\(before)")
                // The mailed reset token proves the address.
                let manager = try #require(s.server.accounts["myapp"]).manager
                let token = try #require(try await manager.issueReset(email: "ann@example.com"))
                let reset = try await s.call(
                    .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/reset",
                    body: AccountRoutesTests.json(["token": token.token, "tokenId": token.tokenID, "password": "a new password 22"]))
                #expect(reset.status == 204, "\(reset.body)")
                let after = try await Self.claims(s, b, password: "a new password 22")
                #expect(after["email_verified"] == true, "\(after)")
            }
            // The API login of an auto-confirmed account still works (auto_confirm lets it in).
            try await OIDCFixture.register(s, "bob@example.com")
            let login = try await s.call(
                .POST, LiveServer.base + "/app/myapp/auth/providers/local-userpass/login",
                body: AccountRoutesTests.json(["username": "bob@example.com", "password": OIDCFixture.password]))
            #expect(login.status == 200, "\(login.body)")
        }
    }
}
