import CLIHarness
import Foundation
import Testing

/// The 44 real tokens of TestVectors/realworld through `tokentool verify`: each
/// gets its verdict at its `now`, and is refused as `expired` one second after its `exp`.
@Suite struct RealWorldTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let token: String
        let keyFile: String
        let keyMode: String
        let kid: String?
        let jws: Bool
        let now: Int64?
        let valid: Bool
        let sub: String?
        /// `tokentool idp PROVIDER` as well: (provider, client id = the token's aud, verdict).
        let idp: (provider: String, clientID: String, valid: Bool)?
        var testDescription: String { name }
    }

    static let folder = CLI.packageRoot.appendingPathComponent("TestVectors/realworld")

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("cases.json")),
            let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let list = root["cases"] as? [[String: Any]]
        else { return [] }
        return list.map { c in
            let expect = c["expect"] as? [String: Any] ?? [:]
            let idp = (c["idp"] as? [String: Any]).map {
                (provider: $0["provider"] as? String ?? "", clientID: $0["client_id"] as? String ?? "", valid: $0["expect_valid"] as? Bool ?? false)
            }
            return Case(
                name: c["name"] as? String ?? "?", token: c["token"] as? String ?? "", keyFile: c["key_file"] as? String ?? "",
                keyMode: c["key_mode"] as? String ?? "", kid: c["kid"] as? String, jws: c["jws"] as? Bool ?? false,
                now: (c["now"] as? NSNumber)?.int64Value, valid: expect["valid"] as? Bool ?? false, sub: expect["sub"] as? String,
                idp: idp)
        }
    }()

    @Test func allFortyFourCasesAreHere() {
        #expect(Self.cases.count == 44)
    }

    static func arguments(_ c: Case) -> [String] {
        let file = folder.appendingPathComponent(c.keyFile).path
        var args = ["verify", "--json"]
        switch c.keyMode {
        case "jwks": args += ["--jwks", file]
        case "secret": args += ["--secret-file", file]
        default: args += ["--key", file]
        }
        if let kid = c.kid { args += ["--kid", kid] }
        if c.jws { args.append("--jws") }
        return args
    }

    @Test(arguments: cases)
    func verdictAtItsTime(_ c: Case) throws {
        var args = Self.arguments(c)
        if !c.jws, let now = c.now { args += ["--now", String(now)] }
        let r = try CLI.tokentool(args + [c.token])
        if c.valid {
            #expect(r.status == 0, "\(r)")
            if let sub = c.sub { #expect((r.json?["payload"] as? [String: Any])?["sub"] as? String == sub) }
        } else {
            #expect(r.status == 1, "\(r)")
            #expect(r.errorCode == "invalid_signature")
        }
    }

    /// The provider tokens through `tokentool idp` at their time: Google's IAP assertion is a real
    /// Google signature but no Google sign-in, and forged signatures are refused.
    @Test(arguments: cases.filter { $0.idp != nil })
    func identityProviderVerdict(_ c: Case) throws {
        let idp = try #require(c.idp)
        let s = try Scratch()
        let jwks = Self.folder.appendingPathComponent(c.keyFile).path
        var args = ["idp", idp.provider, "--jwks", jwks, "--json", "--now", String(try #require(c.now))]
        switch idp.provider {
        case "facebook": args += ["--app-id", idp.clientID, "--app-secret-file", try s.write("app-secret", "unused"), "--limited-login"]
        default: args += ["--client-id", idp.clientID]
        }
        let r = try CLI.tokentool(args + [c.token])
        #expect(r.status == (idp.valid ? 0 : 1), "\(r)")
        if idp.valid, let sub = c.sub { #expect((r.json?["identity"] as? [String: Any])?["subject"] as? String == sub) }
    }

    @Test(arguments: cases.filter { !$0.jws })
    func expiredOneSecondAfterExp(_ c: Case) throws {
        let payload = String(c.token.split(separator: ".")[1])
        var b64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        let data = try #require(Data(base64Encoded: b64))
        let claims = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        guard let exp = (claims["exp"] as? NSNumber)?.int64Value else { return }
        let r = try CLI.tokentool(Self.arguments(c) + ["--now", String(exp + 1), c.token])
        #expect(r.status == 1, "\(r)")
        #expect(r.errorCode == (c.valid ? "expired" : "invalid_signature"))
    }
}
