import CLIHarness
import Foundation
import Testing

/// `verify --jwks FILE` with sets that hold refused keys, and secrets beside public keys (issue 11 item 8).
@Suite struct KeySetTests {
    /// Wycheproof json_web_key_test tcId 4 through the CLI: two keys share a kid, one of which the
    /// set refuses on load; the kid is ambiguous, so the token is refused (it used to verify).
    @Test func wycheproofDuplicateKidIsAmbiguousThroughTheCLI() throws {
        let url = CLI.packageRoot.appendingPathComponent("TestVectors/wycheproof/json_web_key_test.json")
        let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let groups = try #require(file["testGroups"] as? [[String: Any]])
        let group = try #require(groups.first { (($0["tests"] as? [[String: Any]]) ?? []).contains { $0["tcId"] as? Int == 4 } })
        let test = try #require((group["tests"] as? [[String: Any]])?.first { $0["tcId"] as? Int == 4 })
        let s = try Scratch()
        let set = String(decoding: try JSONSerialization.data(withJSONObject: try #require(group["private"])), as: UTF8.self)
        try s.write("dup.json", set)
        let r = try s.tokentool("verify", "--jws", "--json", "--jwks", "dup.json", try #require(test["jws"] as? String))
        #expect(r.status == 1, "\(r)")
        #expect(r.errorCode == "key_not_found")
    }

    /// One JWKS holding an HMAC secret and a public key: each verifies its own tokens.
    @Test func secretsBesidePublicKeys() throws {
        let s = try Scratch()
        _ = try s.sh("tokentool keygen --type ec --kid e --out ec.jwk && tokentool keygen --type oct --kid h --out h.jwk")
        let ec = try s.read("ec.jwk"), h = try s.read("h.jwk")
        try s.write("mixed.json", #"{"keys":[\#(ec),\#(h)]}"#)
        for key in ["ec.jwk", "h.jwk"] {
            let token = try s.tokentool("sign", "--key", key, "--set", "sub=x", "--expires-in", "1h")
            #expect(token.status == 0, "\(token)")
            let r = try s.tokentool("verify", "--json", "--jwks", "mixed.json", token.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(r.status == 0, "\(key): \(r)")
        }
    }
}
