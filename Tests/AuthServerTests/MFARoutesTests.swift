import CLIHarness
import Foundation
import JOSE
@_spi(Testing) import SessionStorePostgres
@_spi(Testing) import SessionStoreSQLite
import Sessions
import Testing

/// TOTP and recovery codes over real HTTP, on every store: enrolment, the second step of an
/// email/password sign-in, the lock. Codes come from Debian's oathtool and PyPI's pyotp, never
/// from our own TOTP.
@Suite(.enabled(if: ExternalTool.oathtool && ExternalTool.pyotp, "oathtool or pyotp is missing (make deps installs them)"))
struct MFARoutesTests {
    static let apps = #"{ "myapp": { "providers": { "local-userpass": { "auto_confirm": true }, "anon-user": {} } } }"#
    static let userpass = LiveServer.base + "/app/myapp/auth/providers/local-userpass"
    static let mfa = LiveServer.base + "/auth/mfa"

    static func json(_ pairs: [String: String]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: pairs, options: [.sortedKeys]), as: UTF8.self)
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// Runs SQL on the live server's store (time moved by hand: sessions older, locks over).
    static func raw(_ s: LiveServer, _ sql: String) async throws {
        if let store = s.server.store as? SQLiteSessionStore { try await store.executeRaw(sql) }
        if let store = s.server.store as? PostgresSessionStore { try await store.executeRaw(sql) }
    }

    /// A registered user's login answer.
    static func login(_ s: LiveServer, _ email: String = "ada@example.com") async throws -> LiveServer.Answer {
        try await s.call(.POST, userpass + "/login", body: json(["username": email, "password": "correct horse"]))
    }

    /// Registers and signs in `email`, turns TOTP on; the base32 secret, the recovery codes and the access token.
    static func enrolled(_ s: LiveServer, _ email: String = "ada@example.com") async throws -> (secret: String, codes: [String], access: String) {
        let registered = try await s.call(.POST, userpass + "/register", body: json(["email": email, "password": "correct horse"]))
        #expect(registered.status == 201, "\(registered.body)")
        return try await enableTOTP(s, email)
    }

    /// Signs the registered `email` in through the API and turns TOTP on: the base32 secret, the recovery codes and the access token.
    static func enableTOTP(_ s: LiveServer, _ email: String) async throws -> (secret: String, codes: [String], access: String) {
        let access = try #require(try await login(s, email)["access_token"])
        let enrolment = try await s.call(.POST, mfa + "/totp", bearer: access)
        #expect(enrolment.status == 200 && enrolment.header("Cache-Control") == "no-store", "\(enrolment.body)")
        let secret = try #require(enrolment["secret"])
        let code = try await ExternalTool.oathtoolCode(secret, at: now)
        let confirmed = try await s.call(.POST, mfa + "/totp/confirm", body: json(["code": code]), bearer: access)
        #expect(confirmed.status == 200, "\(confirmed.body)")
        let codes = try #require(confirmed.object["recovery_codes"]?.arrayValue).compactMap(\.stringValue)
        return (secret, codes, access)
    }

    @Test(
        "enrol (pyotp reads the otpauth URI), confirm, status, new recovery codes, delete; wrong codes 400; an old sign-in 401",
        arguments: StoreKind.available)
    func enrolment(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            #expect(
                try await s.call(.POST, Self.userpass + "/register", body: Self.json(["email": "ada@example.com", "password": "correct horse"]))
                    .status == 201)
            let first = try await Self.login(s)
            let access = try #require(first["access_token"]), refresh = try #require(first["refresh_token"])
            let none = try await s.call(.GET, Self.mfa, bearer: access)
            let expected = try JSONValue(parsing: #"{"totp":false,"passkeys":0,"recovery_codes_left":0}"#)
            #expect(none.status == 200 && none.json == expected)

            let enrolment = try await s.call(.POST, Self.mfa + "/totp", bearer: access)
            let secret = try #require(enrolment["secret"]), uri = try #require(enrolment["otpauth_uri"])
            #expect(secret.count == 32 && uri.hasPrefix("otpauth://totp/myapp:ada%40example.com?secret=\(secret)&issuer=myapp"))
            let theirs = try await ExternalTool.output("python3", ["-c", "import pyotp, sys; print(pyotp.parse_uri(sys.argv[1]).now())", uri])
            let wrong = try await s.call(.POST, Self.mfa + "/totp/confirm", body: Self.json(["code": "000000"]), bearer: access)
            #expect(wrong.status == 400 && wrong.errorCode == "InvalidParameter")
            let missing = try await s.call(.POST, Self.mfa + "/totp/confirm", body: "{}", bearer: access)
            #expect(missing.status == 400 && missing.errorCode == "MissingParameter")
            let confirmed = try await s.call(.POST, Self.mfa + "/totp/confirm", body: Self.json(["code": theirs]), bearer: access)
            #expect(confirmed.status == 200 && confirmed.header("Cache-Control") == "no-store", "\(confirmed.body)")
            let codes = try #require(confirmed.object["recovery_codes"]?.arrayValue).compactMap(\.stringValue)
            #expect(codes.count == 10)
            // The same code again: refused (accepted once).
            let replay = try await s.call(.POST, Self.mfa + "/recovery_codes", body: Self.json(["code": theirs]), bearer: access)
            #expect(replay.status == 400 && replay.errorCode == "InvalidParameter")
            let status = try await s.call(.GET, Self.mfa, bearer: access)
            #expect(status.object["totp"]?.boolValue == true && status.object["recovery_codes_left"]?.intValue == 10)

            let renewed = try await s.call(.POST, Self.mfa + "/recovery_codes", body: Self.json(["code": codes[0]]), bearer: access)
            #expect(renewed.status == 200, "\(renewed.body)")
            let fresh = try #require(renewed.object["recovery_codes"]?.arrayValue).compactMap(\.stringValue)
            #expect(fresh.count == 10 && Set(fresh).isDisjoint(with: codes))

            // A sign-in older than 10 minutes may not change factors, even with a refreshed access token.
            try await Self.raw(s, "UPDATE sessions SET created_at = created_at - 601, auth_time = auth_time - 601")
            let old = try await s.call(.DELETE, Self.mfa + "/totp", body: Self.json(["code": fresh[0]]), bearer: access)
            #expect(old.status == 401 && old.errorCode == "ReauthenticationRequired", "\(old.body)")
            let refreshed = try #require(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: refresh)["access_token"])
            #expect(try await s.call(.POST, Self.mfa + "/totp", bearer: refreshed).errorCode == "ReauthenticationRequired")
            #expect(try await s.call(.GET, Self.mfa, bearer: refreshed).status == 200)

            // A new sign-in (second step by recovery code) turns it off with a recovery code.
            let challenge = try await Self.login(s)
            #expect(challenge.status == 401 && challenge.errorCode == "MFARequired")
            let second = try await s.call(
                .POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": challenge["mfa_token"] ?? "", "recovery_code": fresh[1]]))
            let newAccess = try #require(second["access_token"])
            let off = try await s.call(.DELETE, Self.mfa + "/totp", body: Self.json(["code": fresh[2]]), bearer: newAccess)
            #expect(off.status == 204, "\(off.body)")
            #expect(try await s.call(.GET, Self.mfa, bearer: newAccess).object["totp"]?.boolValue == false)
            #expect(try await Self.login(s).status == 200)
            let gone = try await s.call(.DELETE, Self.mfa + "/totp", body: Self.json(["code": fresh[3]]), bearer: newAccess)
            #expect(gone.status == 400 && gone.errorCode == "InvalidParameter")
            // Secrets and codes never reach the log.
            let logs = s.logs.all.joined(separator: "\n")
            #expect(!logs.contains(secret) && !logs.contains(theirs) && !codes.contains(where: logs.contains))
        }
    }

    @Test(
        "login with TOTP on: 401 MFARequired (no-store) with a single-use mfa_token; a wrong code keeps it; code or recovery code signs in",
        arguments: StoreKind.available)
    func secondStep(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let (secret, codes, _) = try await Self.enrolled(s)
            let challenge = try await Self.login(s)
            #expect(challenge.status == 401 && challenge.errorCode == "MFARequired" && challenge["link"] != nil)
            #expect(challenge.header("Cache-Control") == "no-store" && challenge["access_token"] == nil)
            let token = try #require(challenge["mfa_token"])
            // A wrong password is still AuthError, with no token.
            let bad = try await s.call(.POST, Self.userpass + "/login", body: Self.json(["username": "ada@example.com", "password": "wrong horse"]))
            #expect(bad.status == 401 && bad.errorCode == "AuthError" && bad["mfa_token"] == nil)

            let wrong = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": token, "code": "000000"]))
            #expect(wrong.status == 401 && wrong.errorCode == "AuthError")
            // The confirming code's step was accepted already; the next step's (one step of drift) works.
            let code = try await ExternalTool.oathtoolCode(secret, at: Self.now + 30)
            let signedIn = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": token, "code": code]))
            #expect(signedIn.status == 200 && signedIn.header("Cache-Control") == "no-store", "\(signedIn.body)")
            let refresh = try #require(signedIn["refresh_token"])
            #expect(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: refresh).status == 201)
            // Single use, whatever the code.
            let again = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": token, "recovery_code": codes[0]]))
            #expect(again.status == 401 && again.errorCode == "AuthError")
            let unknown = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": "nope", "recovery_code": codes[0]]))
            #expect(unknown.status == 401 && unknown.errorCode == "AuthError")
            let both = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": token, "code": "1", "recovery_code": "2"]))
            #expect(both.status == 400)
            // Expired (5 minutes): dead.
            let late = try #require(try await Self.login(s)["mfa_token"])
            try await Self.raw(s, "UPDATE one_time_tokens SET expires_at = created_at WHERE purpose = 'pending-auth' AND used_at IS NULL")
            let expired = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": late, "recovery_code": codes[0]]))
            #expect(expired.status == 401 && expired.errorCode == "AuthError")

            let next = try #require(try await Self.login(s)["mfa_token"])
            let byRecovery = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": next, "recovery_code": codes[0]]))
            #expect(byRecovery.status == 200 && byRecovery["user_id"] == signedIn["user_id"], "\(byRecovery.body)")
            // A step an earlier release stored (purpose mfa-login, the device JSON as payload) still signs in.
            let userID = try #require(signedIn["user_id"])
            let device = #"{"deviceId":"65f0c0ffee0000000000abcd"}"#
            let now = Int64(Date().timeIntervalSince1970)
            try await s.server.store.transaction { tx in
                try await tx.insertOneTimeToken(
                    OneTimeTokenRecord(
                        purpose: OneTimeTokenPurpose(rawValue: "mfa-login"), hash: OneTimeToken.hash("an-earlier-release-step"), app: "myapp",
                        subject: userID, payload: device, createdAt: now, expiresAt: now + 300))
            }
            let earlier = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": "an-earlier-release-step", "recovery_code": codes[1]]))
            #expect(earlier.status == 200 && earlier["user_id"] == userID && earlier["device_id"] == "65f0c0ffee0000000000abcd", "\(earlier.body)")
            // A recovery code is single use.
            let third = try #require(try await Self.login(s)["mfa_token"])
            let spent = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": third, "recovery_code": codes[0]]))
            #expect(spent.status == 401)
        }
    }

    @Test("five wrong codes through any route lock them all (429, Retry-After); the fifth answered as wrong", arguments: StoreKind.available)
    func lock(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let (secret, codes, access) = try await Self.enrolled(s)
            let token = try #require(try await Self.login(s)["mfa_token"])
            for _ in 0..<4 {
                #expect(try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": token, "code": "000000"])).status == 401)
            }
            let fifth = try await s.call(.POST, Self.mfa + "/recovery_codes", body: Self.json(["code": "00000-00000"]), bearer: access)
            #expect(fifth.status == 400 && fifth.errorCode == "InvalidParameter")
            let code = try await ExternalTool.oathtoolCode(secret, at: Self.now + 30)
            let locked = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": token, "code": code]))
            #expect(locked.status == 429 && locked.errorCode == "TooManyRequests", "\(locked.body)")
            let after = try #require(Int(locked.header("Retry-After") ?? ""))
            #expect((600...900).contains(after), "the 15-minute lock, minus the time this test took under load: \(after)")
            let elsewhere = try await s.call(.POST, Self.mfa + "/recovery_codes", body: Self.json(["code": codes[0]]), bearer: access)
            #expect(elsewhere.status == 429 && elsewhere.header("Retry-After") != nil)
            // Fifteen minutes later (moved in the store), the token still alive signs in.
            try await Self.raw(s, "UPDATE mfa_factors SET locked_until = 1")
            let signedIn = try await s.call(.POST, Self.userpass + "/mfa", body: Self.json(["mfa_token": token, "recovery_code": codes[1]]))
            #expect(signedIn.status == 200, "\(signedIn.body)")
        }
    }
}
