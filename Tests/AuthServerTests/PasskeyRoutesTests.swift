import CLIHarness
import Foundation
import JOSE
import Sessions
import Testing

/// Passkeys over real HTTP, on every store: registration, listing, deletion, the passkey sign-in
/// and the passkey as the second step of an email/password sign-in, with `amr`/`acr`, and the
/// refusals of each verification step (nothing stored, the server serving on).
@Suite struct PasskeyRoutesTests {
    typealias T = MFARoutesTests
    static let apps = #"{ "myapp": { "providers": { "local-userpass": { "auto_confirm": true }, "passkey": {} } } }"#
    static let passkeys = LiveServer.base + "/auth/passkeys"
    static let provider = LiveServer.base + "/app/myapp/auth/providers/passkey"
    static let origin = "http://auth.test", rpID = "auth.test"

    static func body(_ object: JSONObject) -> String { JSONValue.object(object).jsonString }

    /// Registers `email`, signs in with the password: the answer.
    static func user(_ s: LiveServer, _ email: String) async throws -> LiveServer.Answer {
        let registered = try await s.call(.POST, T.userpass + "/register", body: T.json(["email": email, "password": "correct horse"]))
        #expect(registered.status == 201, "\(registered.body)")
        return try await T.login(s, email)
    }

    /// The registration options' `publicKey`.
    static func creationOptions(_ s: LiveServer, _ access: String) async throws -> JSONObject {
        let answer = try await s.call(.POST, passkeys + "/registration/options", bearer: access)
        #expect(answer.status == 200 && answer.header("Cache-Control") == "no-store", "\(answer.body)")
        return try #require(answer.object["publicKey"]?.objectValue)
    }

    /// A new authenticator registered for the bearer: the authenticator and the 201 answer.
    static func registered(_ s: LiveServer, _ access: String, name: String = "laptop") async throws -> (SoftAuthenticator, LiveServer.Answer) {
        var authenticator = try SoftAuthenticator()
        let credential = try authenticator.create(try await creationOptions(s, access), origin: origin)
        let answer = try await s.call(
            .POST, passkeys + "/registration", body: body(["credential": credential, "name": .string(name)]), bearer: access)
        return (authenticator, answer)
    }

    /// A passkey sign-in's options: the challenge id and the `publicKey`.
    static func loginOptions(_ s: LiveServer) async throws -> (String, JSONObject) {
        let answer = try await s.call(.POST, provider + "/login/options", body: "{}")
        #expect(answer.status == 200, "\(answer.body)")
        return (try #require(answer["challenge_id"]), try #require(answer.object["publicKey"]?.objectValue))
    }

    static func login(_ s: LiveServer, _ challengeID: String, _ credential: JSONValue) async throws -> LiveServer.Answer {
        try await s.call(.POST, provider + "/login", body: body(["challenge_id": .string(challengeID), "credential": credential]))
    }

    static func count(_ s: LiveServer, _ access: String) async throws -> Int {
        try await s.call(.GET, passkeys, bearer: access).json?.arrayValue?.count ?? -1
    }

    @Test(
        "register (201, excludeCredentials), list, status; sign in by passkey [hwk, user, mfa]; a password sign-in then needs it [pwd, hwk, mfa]; delete",
        arguments: StoreKind.available)
    func lifecycle(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let first = try await Self.user(s, "ada@example.com")
            let access = try #require(first["access_token"]), userID = try #require(first["user_id"])
            let options = try await Self.creationOptions(s, access)
            #expect(options["rp"]?.objectValue?["id"]?.stringValue == Self.rpID)
            #expect(options["user"]?.objectValue?["id"]?.stringValue == Base64URL.encode(Array(userID.utf8)))
            #expect(options["attestation"]?.stringValue == "none" && options["excludeCredentials"]?.arrayValue == [])
            #expect(options["authenticatorSelection"]?.objectValue?["residentKey"]?.stringValue == "preferred")
            #expect(Set(options["pubKeyCredParams"]?.arrayValue?.compactMap { $0.objectValue?["alg"]?.intValue } ?? []) == [-7, -8, -257])

            let (authenticator, created) = try await Self.registered(s, access)
            #expect(created.status == 201 && created["id"] == authenticator.id && created["name"] == "laptop", "\(created.body)")
            #expect(created["created_at"].map { ISO8601DateFormatter().date(from: $0) != nil } == true)
            var device = authenticator
            let listed = try await s.call(.GET, Self.passkeys, bearer: access)
            #expect(listed.status == 200 && listed.json?.arrayValue?.first?.objectValue?["last_used_at"] == .null, "\(listed.body)")
            let status = try await s.call(.GET, T.mfa, bearer: access)
            #expect(status.json == (try JSONValue(parsing: #"{"totp":false,"passkeys":1,"recovery_codes_left":0}"#)), "\(status.body)")
            let again = try await Self.creationOptions(s, access)
            #expect(again["excludeCredentials"]?.arrayValue?.first?.objectValue?["id"]?.stringValue == authenticator.id)

            // Sign-in: the discoverable credential, user verified.
            let (challengeID, request) = try await Self.loginOptions(s)
            #expect(request["allowCredentials"]?.arrayValue == [] && request["rpId"]?.stringValue == Self.rpID)
            let assertion = try device.get(challenge: try #require(request["challenge"]?.stringValue), rpID: Self.rpID, origin: Self.origin)
            let signedIn = try await Self.login(s, challengeID, assertion)
            #expect(signedIn.status == 200 && signedIn["user_id"] == userID, "\(signedIn.body)")
            #expect(try MFASignInTests.amr(signedIn["access_token"]) == (["hwk", "user", "mfa"], "urn:tokentool:acr:mfa"))
            let replayed = try await Self.login(s, challengeID, assertion)
            #expect(replayed.status == 401 && replayed.errorCode == "AuthError", "\(replayed.body)")
            let used = try await s.call(.GET, Self.passkeys, bearer: access)
            #expect(used.json?.arrayValue?.first?.objectValue?["last_used_at"]?.stringValue != nil)

            // A password sign-in now has a second step, answered by the passkey.
            let step = try await T.login(s)
            #expect(step.status == 401 && step.errorCode == "MFARequired", "\(step.body)")
            let token = try #require(step["mfa_token"])
            let mfaOptions = try await s.call(.POST, T.userpass + "/mfa/passkey/options", body: T.json(["mfa_token": token]))
            let publicKey = try #require(mfaOptions.object["publicKey"]?.objectValue, "\(mfaOptions.body)")
            #expect(publicKey["allowCredentials"]?.arrayValue?.compactMap { $0.objectValue?["id"]?.stringValue } == [authenticator.id])
            let second = try device.get(challenge: try #require(publicKey["challenge"]?.stringValue), rpID: Self.rpID, origin: Self.origin)
            let done = try await s.call(.POST, T.userpass + "/mfa", body: Self.body(["mfa_token": .string(token), "passkey": second]))
            #expect(done.status == 200, "\(done.body)")
            #expect(try MFASignInTests.amr(done["access_token"]) == (["pwd", "hwk", "mfa"], "urn:tokentool:acr:mfa"))
            let spent = try await s.call(.POST, T.userpass + "/mfa", body: Self.body(["mfa_token": .string(token), "passkey": second]))
            #expect(spent.status == 401 && spent.errorCode == "AuthError")

            let deleted = try await s.call(.DELETE, Self.passkeys + "/" + authenticator.id, bearer: access)
            #expect(deleted.status == 204)
            let gone = try await s.call(.DELETE, Self.passkeys + "/" + authenticator.id, bearer: access)
            #expect(gone.status == 404)
            #expect(try await T.login(s).status == 200)
            #expect(try await Self.count(s, access) == 0)
        }
    }

    @Test(
        "refused: replayed registration, UV missing, garbage CBOR, wrong origin, cloned counter, another user's handle or passkey, a stale challenge; then the lock",
        arguments: StoreKind.available)
    func refusals(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let ada = try await Self.user(s, "ada@example.com")
            let access = try #require(ada["access_token"]), adaID = try #require(ada["user_id"])
            var (device, created) = try await Self.registered(s, access)
            #expect(created.status == 201, "\(created.body)")

            // Registration: a replayed response, a response without UV, a hostile attestation object.
            var copy = try SoftAuthenticator()
            let options = try await Self.creationOptions(s, access)
            let credential = try copy.create(options, origin: Self.origin)
            #expect(
                try await s.call(.POST, Self.passkeys + "/registration", body: Self.body(["credential": credential]), bearer: access).status == 201)
            let replayed = try await s.call(.POST, Self.passkeys + "/registration", body: Self.body(["credential": credential]), bearer: access)
            #expect(replayed.status == 400 && replayed.errorCode == "InvalidParameter", "\(replayed.body)")
            var lazy = try SoftAuthenticator()
            lazy.userVerified = false
            let unverified = try lazy.create(try await Self.creationOptions(s, access), origin: Self.origin)
            let noUV = try await s.call(.POST, Self.passkeys + "/registration", body: Self.body(["credential": unverified]), bearer: access)
            #expect(noUV.status == 400 && noUV.errorCode == "InvalidParameter", "\(noUV.body)")
            let challenge = try #require(try await Self.creationOptions(s, access)["challenge"]?.stringValue)
            let hostile: JSONValue = .object([
                "id": .string(lazy.id), "type": "public-key",
                "response": .object([
                    "clientDataJSON": .string(
                        Base64URL.encode(SoftAuthenticator.clientData(type: "webauthn.create", challenge: challenge, origin: Self.origin))),
                    "attestationObject": .string(Base64URL.encode([0xbf, 0x9f, 0x9f, 0x9f] + [UInt8](repeating: 0x81, count: 300))),
                ]),
            ])
            let garbage = try await s.call(.POST, Self.passkeys + "/registration", body: Self.body(["credential": hostile]), bearer: access)
            #expect(garbage.status == 400 && garbage.errorCode == "BadRequest", "\(garbage.body)")
            #expect(try await Self.count(s, access) == 2)

            // Sign-in refusals, each on a fresh challenge.
            func attempt(_ make: (String) throws -> JSONValue) async throws -> LiveServer.Answer {
                let (id, request) = try await Self.loginOptions(s)
                return try await Self.login(s, id, try make(try #require(request["challenge"]?.stringValue)))
            }
            let wrongOrigin = try await attempt { try device.get(challenge: $0, rpID: Self.rpID, origin: "http://evil.test") }
            #expect(wrongOrigin.status == 401 && wrongOrigin.errorCode == "AuthError", "\(wrongOrigin.body)")
            let wrongRP = try await attempt { try device.get(challenge: $0, rpID: "evil.test", origin: Self.origin) }
            #expect(wrongRP.status == 401)
            let wrongHandle = try await attempt {
                try device.get(challenge: $0, rpID: Self.rpID, origin: Self.origin, userHandle: Array("someone".utf8))
            }
            #expect(wrongHandle.status == 401)
            let (staleID, _) = try await Self.loginOptions(s)
            let otherChallenge = try await Self.login(s, staleID, try device.get(challenge: challenge, rpID: Self.rpID, origin: Self.origin))
            #expect(otherChallenge.status == 401)
            // Four failures so far for ada; a right assertion resets the count.
            let good = try await attempt { try device.get(challenge: $0, rpID: Self.rpID, origin: Self.origin) }
            #expect(good.status == 200, "\(good.body)")
            var clone = device
            clone.signCount = 0
            let cloned = try await attempt { try clone.get(challenge: $0, rpID: Self.rpID, origin: Self.origin) }
            #expect(cloned.status == 401 && cloned.body.contains("clone"), "\(cloned.body)")

            // Another user's passkey as ada's second factor.
            let bob = try await Self.user(s, "bob@example.com")
            var (bobDevice, _) = try await Self.registered(s, try #require(bob["access_token"]))
            let step = try await T.login(s)
            let token = try #require(step["mfa_token"])
            let publicKey = try #require(
                try await s.call(.POST, T.userpass + "/mfa/passkey/options", body: T.json(["mfa_token": token])).object["publicKey"]?.objectValue)
            let bobs = try bobDevice.get(challenge: try #require(publicKey["challenge"]?.stringValue), rpID: Self.rpID, origin: Self.origin)
            let foreign = try await s.call(.POST, T.userpass + "/mfa", body: Self.body(["mfa_token": .string(token), "passkey": bobs]))
            #expect(foreign.status == 401 && foreign.errorCode == "AuthError", "\(foreign.body)")

            // Sign-in refusals before the signature verifies count nothing (anyone can name a credential id).
            for _ in 0..<5 {
                #expect(try await attempt { try device.get(challenge: $0, rpID: Self.rpID, origin: "http://evil.test") }.status == 401)
            }
            // Failures 3..5 at the second step (the clone was 1, bob's passkey 2: both past a password or a
            // signature), then the lock, which a right assertion does not pass.
            for _ in 0..<3 {
                let again = try #require(
                    try await s.call(.POST, T.userpass + "/mfa/passkey/options", body: T.json(["mfa_token": token])).object["publicKey"]?
                        .objectValue)
                let other = try bobDevice.get(challenge: try #require(again["challenge"]?.stringValue), rpID: Self.rpID, origin: Self.origin)
                #expect(
                    try await s.call(.POST, T.userpass + "/mfa", body: Self.body(["mfa_token": .string(token), "passkey": other])).status == 401)
            }
            let locked = try await attempt { try device.get(challenge: $0, rpID: Self.rpID, origin: Self.origin) }
            #expect(locked.status == 429 && locked.header("Retry-After") != nil, "\(locked.body)")
            #expect(try await Self.count(s, access) == 2)
            #expect(try await s.call(.GET, T.mfa, bearer: access).status == 200)
            _ = adaID
        }
    }

    @Test(
        "bogus sign-in assertions naming a victim's credential id lock nothing and all get one answer, an unknown id's",
        arguments: StoreKind.available)
    func bogusAssertionsLockNothing(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let ada = try await Self.user(s, "ada@example.com")
            let access = try #require(ada["access_token"])
            var (device, created) = try await Self.registered(s, access)
            #expect(created.status == 201, "\(created.body)")
            func attempt(_ make: (String) throws -> JSONValue) async throws -> LiveServer.Answer {
                let (id, request) = try await Self.loginOptions(s)
                return try await Self.login(s, id, try make(try #require(request["challenge"]?.stringValue)))
            }
            // An attacker who knows ada's credential id but holds no key: a forged signature, another
            // origin, another user handle, and (for comparison) an id nobody registered.
            var forger = try SoftAuthenticator(credentialID: device.credentialID)
            var stranger = try SoftAuthenticator()
            var answers: [LiveServer.Answer] = []
            for round in 0..<3 {
                answers.append(try await attempt { try forger.get(challenge: $0, rpID: Self.rpID, origin: Self.origin, userHandle: device.userHandle) })
                answers.append(try await attempt { try device.get(challenge: $0, rpID: Self.rpID, origin: "http://evil.test") })
                answers.append(try await attempt { try device.get(challenge: $0, rpID: Self.rpID, origin: Self.origin, userHandle: Array("x\(round)".utf8)) })
                answers.append(try await attempt { try stranger.get(challenge: $0, rpID: Self.rpID, origin: Self.origin) })
            }
            for answer in answers {
                #expect(answer.status == 401 && answer.errorCode == "AuthError", "\(answer.status) \(answer.body)")
                #expect(answer["error"] == answers.last?["error"], "the refusal tells credentials apart: \(answer.body)")
            }
            // Twelve refusals, nine naming ada's id: her passkey still signs her in at once, and her second step is not locked.
            let good = try await attempt { try device.get(challenge: $0, rpID: Self.rpID, origin: Self.origin) }
            #expect(good.status == 200 && good["access_token"] != nil, "\(good.status) \(good.body)")
        }
    }

    @Test("registration and deletion need a sign-in in the last 10 minutes; sign-in needs the passkey provider", arguments: [StoreKind.sqlite])
    func recentSignInAndProvider(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let ada = try await Self.user(s, "ada@example.com")
            let access = try #require(ada["access_token"])
            let (device, _) = try await Self.registered(s, access)
            let sid = try #require(try DeviceIDTests.claims(access)["sid"]?.stringValue)
            try await T.raw(s, "UPDATE sessions SET auth_time = auth_time - 660 WHERE id = '\(sid)'")
            let old = try await s.call(.POST, Self.passkeys + "/registration/options", bearer: access)
            #expect(old.status == 401 && old.errorCode == "ReauthenticationRequired", "\(old.body)")
            let delete = try await s.call(.DELETE, Self.passkeys + "/" + device.id, bearer: access)
            #expect(delete.status == 401 && delete.errorCode == "ReauthenticationRequired")
            #expect(try await Self.count(s, access) == 1)
        }
        try await LiveServer.with(kind, apps: T.apps) { s in
            let answer = try await s.call(.POST, LiveServer.base + "/app/myapp/auth/providers/passkey/login/options", body: "{}")
            #expect(answer.status == 404 && answer.errorCode == "AuthProviderNotFound", "\(answer.body)")
        }
    }
}
