import AuthServer
import JOSE
import Testing

/// `apps.ID.op_session_ttl`: how long the OpenID Provider's browser session lasts.
@Suite("op_session_ttl")
struct OPSessionTTLConfigTests {
    func parse(_ app: String) throws -> AppConfig? {
        try ServerConfig.parse(#"{"public_url":"https://auth.example.com","apps":{"a":\#(app)}}"#, directory: "/srv/auth").apps["a"]
    }

    @Test("12 hours by default; a duration of 60s…30d otherwise")
    func read() throws {
        #expect(try parse("{}")?.opSessionTTL == 43_200)
        #expect(try parse(#"{"op_session_ttl":"30m"}"#)?.opSessionTTL == 1800)
        #expect(try parse(#"{"op_session_ttl":"60s"}"#)?.opSessionTTL == 60)
        #expect(try parse(#"{"op_session_ttl":"30d"}"#)?.opSessionTTL == 30 * 86_400)
    }

    @Test("anything else names the member", arguments: [#""59s""#, #""31d""#, #""12""#, "43200", "true"])
    func refused(value: String) {
        do {
            _ = try parse(#"{"op_session_ttl":\#(value)}"#)
            Issue.record("accepted \(value)")
        } catch let e as TokenError {
            #expect(e.code.rawValue == "invalid_configuration" && e.message.hasPrefix("apps.a.op_session_ttl:"), "\(e.message)")
        } catch { Issue.record("\(error)") }
    }
}
