import Foundation
import JOSE
import OIDCProvider
@testable import Sessions
import Testing

/// The authorization decision as a value (OIDC Core §3.1.2.3–§3.1.2.6): from the request, the
/// browser's OP session and the user's factors and consents, with the store's reads stubbed; the
/// reads are made only when the decision gets to them. (OIDCAuthorizeTests renders it over HTTP.)
@Suite struct AuthorizationDecisionTests {
    static func request(_ extra: String = "") throws -> OIDCAuthorizationRequest {
        try OIDCAuthorizationRequestTests.valid("response_type=code&client_id=portal&scope=openid" + extra)
    }

    static let now: Int64 = 1_800_000_000
    static func session(amr: [String] = ["pwd"], authTime: Int64 = now - 60, user: String = "u1") -> OPSession {
        OPSession(userID: user, sessionID: "sid", authTime: authTime, amr: amr, expiresAt: now + 3600)
    }

    /// The decision with `factor` and `consent` as the reads' answers, and which reads were made.
    static func decide(
        _ request: OIDCAuthorizationRequest, _ session: OPSession?, hinted: String? = nil, factor: (Bool, Bool) = (false, false), consent: Bool = false
    ) async throws -> (AuthorizationDecision, reads: [String]) {
        var reads: [String] = []
        let decision = try await AuthorizationDecision.decide(
            request, session: session, hintedSubject: hinted, at: now,
            secondFactor: { _ in
                reads.append("factor")
                return factor
            },
            consent: { _ in
                reads.append("consent")
                return consent
            })
        return (decision, reads)
    }

    @Test("nobody signed in, or not as asked (prompt=login, max_age, another hinted user): the login page; prompt=none: login_required; nothing read")
    func signIn() async throws {
        for (extra, session, hinted) in [
            ("", nil, nil), ("&prompt=login", Self.session(), nil), ("&max_age=30", Self.session(), nil), ("", Self.session(), "u2"),
        ] as [(String, OPSession?, String?)] {
            let (decision, reads) = try await Self.decide(try Self.request(extra), session, hinted: hinted)
            #expect(decision == .signIn && reads.isEmpty, "\(extra) \(String(describing: hinted))")
        }
        let (silent, _) = try await Self.decide(try Self.request("&prompt=none"), nil)
        #expect(silent == .error("login_required", "the user is not signed in"))
        let (fresh, _) = try await Self.decide(try Self.request("&max_age=600"), Self.session())
        #expect(fresh == .code(Self.session()))
    }

    @Test("a second factor needed over a one-factor session: its page, interaction_required when silent, unmet_authentication_requirements when the user has none")
    func secondFactor() async throws {
        let (page, reads) = try await Self.decide(try Self.request(), Self.session(), factor: (true, true))
        #expect(page == .secondFactor && reads == ["factor"])
        let (silent, _) = try await Self.decide(try Self.request("&prompt=none"), Self.session(), factor: (true, true))
        #expect(silent == .error("interaction_required", "the second factor must be asked for"))
        let (none, _) = try await Self.decide(try Self.request(), Self.session(), factor: (true, false))
        #expect(none == .error("unmet_authentication_requirements", "the user has no second factor"))
        // A session that has it already: not read.
        let mfa = Self.session(amr: ["pwd", "otp", "mfa"])
        let (done, doneReads) = try await Self.decide(try Self.request(), mfa, factor: (true, true))
        #expect(done == .code(mfa) && doneReads == ["consent"])
    }

    @Test("consent due: its page, consent_required when silent; else a code from the session")
    func consent() async throws {
        let (page, reads) = try await Self.decide(try Self.request(), Self.session(), consent: true)
        #expect(page == .consent && reads == ["factor", "consent"])
        let (silent, _) = try await Self.decide(try Self.request("&prompt=none"), Self.session(), consent: true)
        #expect(silent == .error("consent_required", "the user has not allowed this client"))
        let (code, _) = try await Self.decide(try Self.request("&prompt=none"), Self.session())
        #expect(code == .code(Self.session()))
    }
}
