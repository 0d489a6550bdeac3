import Foundation
import JOSE
import Testing
@testable import AuthServer
@_spi(Testing) @testable import Sessions
import OIDCProvider

/// The OpenID Provider's server-side records in the one-time-token store: login flows (10
/// minutes, single use, resumed with the client as configured) and authorization codes (60 s,
/// single use, bound to client, redirect URI and PKCE challenge; a second use says what the first
/// started). On every store, with the clock passed in.
@Suite struct OIDCFlowRecordTests {
    static let now: Int64 = 1_900_000_000
    static let verifier = String(repeating: "v", count: 43)
    static let portal = OIDCClientConfig(
        id: "portal", app: "app-a", secret: Array("s".utf8), redirectURIs: ["https://portal.example.com/cb", "http://127.0.0.1/cb"])
    static let clients = ["portal": portal]

    static func request(_ extra: [(String, String)] = []) throws -> OIDCAuthorizationRequest {
        let base = [
            ("response_type", "code"), ("client_id", "portal"), ("redirect_uri", "http://127.0.0.1:5173/cb"), ("scope", "openid email bogus"),
            ("state", "st"), ("nonce", "n-1"), ("code_challenge", PKCE.challenge(forVerifier: verifier)), ("code_challenge_method", "S256"),
            ("prompt", "login"), ("max_age", "300"), ("login_hint", "ann@example.com"),
        ]
        guard case .valid(let r) = OIDCAuthorizationRequest.parse((base + extra).map { (name: $0.0, value: $0.1) }, clients: clients, issuer: "i")
        else { throw TokenError(.internalError, "request refused") }
        return r
    }

    @Test("a login flow resumes the request it was made of, is read many times, finished once, and lives 10 minutes", arguments: StoreKind.available)
    func loginFlowLifecycle(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let (handle, flow) = try await t.store.startLoginFlow(try Self.request(), at: Self.now)
            #expect(OIDCFlowHandle.parse(handle)?.clientID == "portal" && flow.csrf.utf8.count == 43)
            let peek = { (time: Int64) in
                try await t.store.transaction { tx in try await tx.loginFlow(handle: handle, clients: Self.clients, at: time, consume: false) }
            }
            let read = try #require(try await peek(Self.now + 1))
            #expect(read.flow == flow)
            #expect(read.request.redirectURI == "http://127.0.0.1:5173/cb" && read.request.scopes == ["openid", "email"])
            #expect(read.request.state == "st" && read.request.nonce == "n-1" && read.request.prompt == [.login] && read.request.maxAge == 300)
            #expect(read.request.codeChallenge == PKCE.challenge(forVerifier: Self.verifier) && read.request.loginHint == "ann@example.com")
            #expect(try await peek(Self.now + OIDCLoginFlow.lifetime - 1) != nil)
            #expect(try await peek(Self.now + OIDCLoginFlow.lifetime) == nil)

            let finished = try #require(
                try await t.store.finishLoginFlow(
                    handle: handle, clients: Self.clients, userID: "user-1", authTime: Self.now, amr: ["pwd"], opSessionID: "sid-1", at: Self.now + 5)
            )
            #expect(finished.flow.flow == flow && finished.code.utf8.count == 43)
            #expect(try await peek(Self.now + 6) == nil)
            #expect(
                try await t.store.finishLoginFlow(
                    handle: handle, clients: Self.clients, userID: "user-1", authTime: Self.now, amr: ["pwd"], opSessionID: "sid-1", at: Self.now + 6)
                    == nil)
        }
    }

    @Test(
        "a flow handle that is malformed, of another client, or whose client or redirect URI is gone resumes nothing", arguments: StoreKind.available)
    func foreignHandles(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let (handle, _) = try await t.store.startLoginFlow(try Self.request(), at: Self.now)
            let token = try #require(OIDCFlowHandle.parse(handle)).token
            var moved = Self.portal
            moved.redirectURIs = ["https://portal.example.com/cb"]
            var other = Self.portal
            other.id = "other"
            for (h, clients) in [
                (handle, ["portal": moved]), (handle, [:]), (OIDCFlowHandle.make(token: token, clientID: "other"), ["other": other]),
                (String(handle.dropFirst()), Self.clients), (token, Self.clients),
            ] {
                #expect(
                    try await t.store.transaction { tx in try await tx.loginFlow(handle: h, clients: clients, at: Self.now, consume: true) } == nil)
            }
            #expect(
                try await t.store.transaction { tx in try await tx.loginFlow(handle: handle, clients: Self.clients, at: Self.now, consume: true) }
                    != nil)
        }
    }

    @Test("records are versioned JSON; a record of another version resumes nothing", arguments: StoreKind.available)
    func versioned(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            var flow = try OIDCLoginFlow(try Self.request(), created: Self.now)
            let json = try RecordPayload.encode(flow)
            #expect(json.hasPrefix(#"{"created":"#) && json.contains(#""v":1"#) && json.contains(#""request":{"client":"portal","#))
            flow.version = 2
            let later = flow
            let handle = try await t.store.transaction { tx in try await tx.issueLoginFlow(later, app: "app-a") }
            #expect(
                try await t.store.transaction { tx in try await tx.loginFlow(handle: handle, clients: Self.clients, at: Self.now, consume: false) }
                    == nil)
        }
    }

    static func issueCode(_ store: any SessionStore, at time: Int64 = now) async throws -> (String, OIDCAuthorizationCode) {
        let (handle, _) = try await store.startLoginFlow(try request(), at: time)
        let finished = try #require(
            try await store.finishLoginFlow(
                handle: handle, clients: clients, userID: "user-1", authTime: time - 30, amr: ["pwd"], opSessionID: "sid-1", at: time))
        let record = try #require(
            try await store.transaction { tx in try await tx.lookUpOneTimeToken(finished.code, purpose: .authorizationCode, app: "app-a") })
        #expect(record.subject == "user-1" && record.expiresAt == time + 60)
        return (finished.code, try #require(RecordPayload.decode(OIDCAuthorizationCode.self, record.payload)))
    }

    @Test(
        "a code is redeemed once, by its client, with its redirect URI and verifier; a second use names what the first started",
        arguments: StoreKind.available)
    func codeRedemption(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let (code, stored) = try await Self.issueCode(t.store)
            #expect(
                stored.version == 1 && stored.binding.clientID == "portal" && stored.binding.nonce == "n-1"
                    && stored.binding.scopes == ["openid", "email"])
            #expect(stored.amr == ["pwd"] && stored.opSessionID == "sid-1" && stored.authTime == Self.now - 30 && stored.sessionID.utf8.count == 22)
            func redeem(
                client: String = "portal", app: String = "app-a", uri: String? = "http://127.0.0.1:5173/cb", verifier: String? = Self.verifier
            )
                async throws -> OIDCCodeRedemption
            {
                try await t.store.redeemAuthorizationCode(code, clientID: client, app: app, redirectURI: uri, verifier: verifier, at: Self.now + 10)
            }
            // Each failed check is invalid_grant and leaves the code for its rightful client.
            for attempt in [
                try await redeem(client: "other"), try await redeem(uri: nil), try await redeem(uri: "http://127.0.0.1:5174/cb"),
                try await redeem(verifier: nil), try await redeem(verifier: String(repeating: "w", count: 43)), try await redeem(app: "app-b"),
            ] {
                guard case .refused(let e) = attempt else { Issue.record("\(attempt)"); continue }
                #expect(e.error == "invalid_grant" && e.status == 400)
            }
            guard case .redeemed(let redeemed) = try await redeem() else { Issue.record("not redeemed"); return }
            #expect(redeemed == stored)
            guard case .reused(let first, let e) = try await redeem() else { Issue.record("second use not told"); return }
            #expect(first.sessionID == stored.sessionID && e.error == "invalid_grant")
        }
    }

    @Test("a code lives 60 s by the clock passed in", arguments: StoreKind.available)
    func codeExpiry(kind: StoreKind) async throws {
        try await Harness.withStore(kind) { t in
            let (late, _) = try await Self.issueCode(t.store)
            let refused = try await t.store.redeemAuthorizationCode(
                late, clientID: "portal", app: "app-a", redirectURI: "http://127.0.0.1:5173/cb", verifier: Self.verifier, at: Self.now + 60)
            guard case .refused(let e) = refused else { Issue.record("redeemed at its expiry"); return }
            #expect(e.error == "invalid_grant" && e.description.contains("expired"))
            let (timely, _) = try await Self.issueCode(t.store)
            let redeemed = try await t.store.redeemAuthorizationCode(
                timely, clientID: "portal", app: "app-a", redirectURI: "http://127.0.0.1:5173/cb", verifier: Self.verifier, at: Self.now + 59)
            guard case .redeemed = redeemed else { Issue.record("refused before its expiry"); return }
        }
    }

    @Test func redemptionChecksAreExact() throws {
        var code = OIDCCodeBinding(try Self.request())
        let uri = "http://127.0.0.1:5173/cb"
        #expect(code.redemptionProblem(clientID: "portal", redirectURI: uri, verifier: Self.verifier) == nil)
        #expect(code.redemptionProblem(clientID: "portal", redirectURI: uri + "/", verifier: Self.verifier)?.error == "invalid_grant")
        code.redirectURIWasSent = false
        code.redirectURI = "https://portal.example.com/cb"
        #expect(code.redemptionProblem(clientID: "portal", redirectURI: nil, verifier: Self.verifier) == nil)
        #expect(code.redemptionProblem(clientID: "portal", redirectURI: "https://portal.example.com/cb", verifier: Self.verifier) == nil)
        code.codeChallenge = nil
        #expect(code.redemptionProblem(clientID: "portal", redirectURI: nil, verifier: nil) == nil)
        #expect(code.redemptionProblem(clientID: "portal", redirectURI: nil, verifier: Self.verifier)?.error == "invalid_grant")
    }
}
