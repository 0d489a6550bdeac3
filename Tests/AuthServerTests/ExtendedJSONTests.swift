@testable import AuthServer
import CLIHarness
import Foundation
import JOSE
import Testing

/// The server's Extended JSON reader against MongoDB's BSON corpus (TestVectors/extended-json/):
/// every valid case's canonical form in, its relaxed form out; every parse error refused.
@Suite("Extended JSON bodies")
struct ExtendedJSONTests {
    static let files = ["int32", "int64", "double", "oid", "datetime", "boolean", "string", "null", "document", "array", "top"]

    /// One corpus case: the file, its description, and its canonical and relaxed texts.
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let description: String
        let canonical: String
        let relaxed: String
        var testDescription: String { "\(file): \(description)" }
    }

    static func file(_ name: String) throws -> [String: Any] {
        let url = CLI.packageRoot.appendingPathComponent("TestVectors/extended-json/\(name).json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    static var valid: [Case] {
        files.flatMap { name -> [Case] in
            let cases = ((try? file(name))?["valid"] as? [[String: Any]]) ?? []
            return cases.map { c in
                let canonical = c["canonical_extjson"] as? String ?? ""
                return Case(
                    file: name, description: c["description"] as? String ?? "", canonical: canonical,
                    relaxed: c["relaxed_extjson"] as? String ?? Self.numberIntsAsNumbers(canonical))
            }
        }
    }

    static var parseErrors: [Case] {
        files.flatMap { name -> [Case] in
            (((try? file(name))?["parseErrors"] as? [[String: Any]]) ?? []).map { c in
                Case(file: name, description: c["description"] as? String ?? "", canonical: c["string"] as? String ?? "", relaxed: "")
            }
        }
    }

    /// A case without `relaxed_extjson` (the corpus gives one only for the types whose forms
    /// differ) relaxes by the spec's rule for the wrappers inside it: `{"$numberInt": "N"}` is N.
    static func numberIntsAsNumbers(_ text: String) -> String {
        text.replacing(#/\{\s*"\$numberInt"\s*:\s*"(-?[0-9]+)"\s*\}/#) { String($0.output.1) }
    }

    /// docs/server.md's one departure from the corpus's relaxed form: a `$numberLong` beyond ±2^53
    /// stays in its `$` form (a JavaScript function would read the plain number inexactly).
    static func expectedRelaxed(_ c: Case) throws -> JSONValue {
        if c.file == "int64", case .object(let o) = try JSONValue(parsing: c.canonical),
            let text = o["a"]?.objectValue?["$numberLong"]?.stringValue, let n = Int64(text), n.magnitude > 1 << 53
        {
            return try JSONValue(parsing: c.canonical)
        }
        return try JSONValue(parsing: c.relaxed)
    }

    @Test("the corpus is all there", arguments: files)
    func corpusIsThere(name: String) throws {
        #expect(try Self.file(name)["valid"] != nil)
        #expect(Self.valid.count >= 40 && Self.parseErrors.count >= 40)
    }

    @Test("canonical in, relaxed out; relaxed in, the same out", arguments: valid)
    func canonicalToRelaxed(c: Case) throws {
        // The body reader refuses NUL in strings (jansson without JSON_ALLOW_NUL): a sign-in body
        // has no use for one, and no log or store must meet one.
        if c.canonical.contains(#"\u0000"#) {
            #expect(throws: TokenError.self) { try JSONValue(parsing: c.canonical) }
            return
        }
        let expected = try Self.expectedRelaxed(c)
        #expect(try ExtendedJSON.relaxed(try JSONValue(parsing: c.canonical)) == expected)
        #expect(try ExtendedJSON.relaxed(expected) == expected)
    }

    @Test("the corpus's parse errors are refused, naming the member", arguments: parseErrors)
    func parseErrorsRefused(c: Case) throws {
        let value: JSONValue
        do { value = try JSONValue(parsing: c.canonical) } catch let e as TokenError {
            #expect(e.code == .malformed)  // NUL in a key or a string: refused before the decoder runs
            return
        }
        let error = try #require(throws: TokenError.self) { try ExtendedJSON.relaxed(value) }
        #expect(error.code == .invalidParameter)
        #expect(error.message.hasPrefix(#""a"#) || error.message.hasPrefix(#""x"#))
    }

    @Test("what realm-web sends: a device id, numbers and a date inside a custom function's payload")
    func realmWebShapes() throws {
        let body = try JSONValue(
            parsing: #"""
                {"username":"ann","n":{"$numberInt":"42"},"d":{"$numberDouble":"2.5"},"big":{"$numberLong":"9007199254740993"},
                 "at":{"$date":{"$numberLong":"1356351330501"}},"list":[{"$numberLong":"7"}],
                 "options":{"device":{"deviceId":{"$oid":"56E1FC72E0C917E9C4714161"},"platform":"node"}}}
                """#)
        let relaxed = try ExtendedJSON.relaxed(body).objectValue ?? [:]
        #expect(relaxed["n"] == .int(42) && relaxed["d"] == .double(2.5) && relaxed["list"] == [.int(7)])
        #expect(relaxed["big"] == .object(["$numberLong": "9007199254740993"]))
        #expect(relaxed["at"] == .object(["$date": "2012-12-24T12:15:30.501Z"]))
        #expect(relaxed["options"]?.objectValue?["device"]?.objectValue?["deviceId"] == .object(["$oid": "56e1fc72e0c917e9c4714161"]))
        let error = try #require(throws: TokenError.self) {
            try ExtendedJSON.relaxed(try JSONValue(parsing: #"{"options":{"device":{"deviceId":{"$oid":"xyz"}}}}"#))
        }
        #expect(error.code == .invalidParameter && error.message.contains("options.device.deviceId"))
        // A relaxed date in, the same out; a number where a string belongs is refused.
        #expect(try ExtendedJSON.relaxed(.object(["$date": "2012-12-24T12:15:30.001Z"])) == .object(["$date": "2012-12-24T12:15:30.001Z"]))
        #expect(throws: TokenError.self) { try ExtendedJSON.relaxed(.object(["$numberInt": "2147483648"])) }
        #expect(throws: TokenError.self) { try ExtendedJSON.relaxed(.object(["$numberInt": " 1"])) }
    }
}
