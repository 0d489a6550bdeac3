import Foundation
import Testing
@testable import JOSE

/// The token path parses headers and claims with ``JSONTape`` instead of jansson (for speed,
/// docs/performance.md). It must accept and refuse exactly what jansson does with
/// `JSON_REJECT_DUPLICATES` for a top-level object, and read the same values: this suite is
/// a differential test against jansson (``JSONDocument``), the independent reference.
@Suite struct JSONTapeTests {
    static let limits = JSONLimits(maxBytes: 64 * 1024, maxDepth: 32, maxTopLevelMembers: 256)

    /// jansson's verdict and value; `nil` when jansson refuses.
    static func jansson(_ bytes: [UInt8]) -> JSONValue? {
        (try? JSONDocument(parsing: bytes, limits: limits))?.value()
    }

    static func tape(_ bytes: [UInt8]) -> JSONValue? {
        (try? JSONTape(parsing: bytes, limits: limits, what: "t"))?.value()
    }

    static let cases: [String] = [
        #"{}"#, #"  { }  "#, "{\n\t\r }", #"[]"#, #"[1]"#, #""s""#, #"1"#, #"null"#, "", " ", #"{"#, #"}"#, #"{"a"}"#, #"{"a":}"#,
        #"{"a":1,}"#, #"{,"a":1}"#, #"{"a":1 "b":2}"#, #"{"a":1}x"#, #"{"a":1}{}"#, #"{a:1}"#, #"{'a':1}"#,
        #"{"a":true,"b":false,"c":null}"#, #"{"a":tru}"#, #"{"a":truex}"#, #"{"a":nul}"#, #"{"a":True}"#,
        #"{"a":0}"#, #"{"a":-0}"#, #"{"a":01}"#, #"{"a":-01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":-}"#, #"{"a":+1}"#,
        #"{"a":1e5}"#, #"{"a":1E+5}"#, #"{"a":1e-5}"#, #"{"a":1e}"#, #"{"a":1e+}"#, #"{"a":1.5e3}"#, #"{"a":1.0}"#,
        #"{"a":9223372036854775807}"#, #"{"a":9223372036854775808}"#, #"{"a":-9223372036854775808}"#,
        #"{"a":-9223372036854775809}"#, #"{"a":1e400}"#, #"{"a":-1e400}"#, #"{"a":1e-400}"#, #"{"a":4102444800}"#,
        #"{"a":1x}"#, #"{"a":1-2}"#, #"{"a":[1,2,[3,{"b":[]}]]}"#, #"{"a":[1,]}"#, #"{"a":[,1]}"#,
        #"{"a":"\"\\\/\b\f\n\r\t"}"#, #"{"a":"\u0041\u00e9\u20AC"}"#, #"{"a":"\ud83d\ude00"}"#, #"{"a":"\ud83d"}"#,
        #"{"a":"\ude00"}"#, #"{"a":"\ud83d\u0041"}"#, #"{"a":"\ud83dx"}"#, #"{"a":"\u0000"}"#, #"{"a":"\u00"}"#, #"{"a":"\uZZZZ"}"#,
        #"{"a":"\x"}"#, #"{"a":"\'"}"#, #"{"a":"é€😀"}"#, #"{"a":"a"#, #"{"a":"\"#,
        #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"ab":1,"a\u0062":2}"#, #"{"a":{"x":1,"x":2}}"#, #"{"a":{"x":1},"b":{"x":2}}"#,
        #"{"":1}"#, #"{"":1,"":2}"#, #"{"a":1,"b":2,"c":3,"d":4,"a":5}"#,
    ]

    @Test(arguments: cases)
    func sameVerdictAndValueAsJansson(_ text: String) {
        let bytes = Array(text.utf8)
        let expected = Self.jansson(bytes)
        // jansson accepts a top-level array; the document wrapper requires an object, as the tape does.
        #expect(Self.tape(bytes) == expected, "\(text)")
    }

    /// Raw bytes: control characters, invalid UTF-8 (overlong, surrogates, > U+10FFFF, truncated).
    static let byteCases: [[UInt8]] = {
        let pre = Array(#"{"a":""#.utf8), post = Array(#""}"#.utf8)
        let bodies: [[UInt8]] = [[0x01], [0x1F], [0x7F], [0x00], [0xC3, 0xA9], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xE0, 0x80, 0x80],
                                 [0xE0, 0xA0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF],
                                 [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
                                 [0xFF], [0x80], [0xE2, 0x82], [0xE2, 0x28, 0xA1]]
        return bodies.map { pre + $0 + post } + [[0x7B, 0x7D, 0x00], [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], [0x7B, 0x00, 0x7D]]
    }()

    @Test(arguments: byteCases)
    func sameVerdictOnRawBytes(_ bytes: [UInt8]) {
        #expect(Self.tape(bytes) == Self.jansson(bytes), "\(bytes)")
    }

    /// Random single-byte mutations, insertions and deletions of the benchmark claims: the
    /// verdicts (and values) must agree every time.
    @Test func randomMutationsAgreeWithJansson() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../TestVectors/bench/workload.json")
        let base = Array(try Data(contentsOf: url))
        var rng = SplitMix(seed: 0x5EED)
        let alphabet = Array(#"{}[]":,\"-+.eE0123456789tfnrulsaxu "#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
        var accepted = 0
        for _ in 0..<4000 {
            var b = base
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let i = Int(rng.next() % UInt64(b.count))
                let c = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                switch rng.next() % 3 {
                case 0: b[i] = c
                case 1: b.insert(c, at: i)
                default: b.remove(at: i)
                }
            }
            let expected = Self.jansson(b)
            if expected != nil { accepted += 1 }
            #expect(Self.tape(b) == expected, "\(String(decoding: b, as: UTF8.self))")
        }
        #expect(accepted > 100)  // the mutations must exercise both verdicts
    }

    @Test func depthAndMemberLimits() {
        let deep = Array((String(repeating: "{\"a\":", count: 5) + "1" + String(repeating: "}", count: 5)).utf8)
        #expect(throws: TokenError(.malformed, "")) { try JSONTape(parsing: deep, limits: JSONLimits(maxDepth: 4), what: "t") }
        #expect((try? JSONTape(parsing: deep, limits: JSONLimits(maxDepth: 5), what: "t")) != nil)
        let many = Array(("{" + (0..<5).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
        #expect(throws: TokenError(.malformed, "")) { try JSONTape(parsing: many, limits: JSONLimits(maxTopLevelMembers: 4), what: "t") }
        #expect(throws: TokenError(.malformed, "")) { try JSONTape(parsing: many, limits: JSONLimits(maxBytes: 10), what: "t") }
    }

    @Test func readsMembersWithoutMaterializing() throws {
        let t = try JSONTape(parsing: Array(#"{"iss":"a\u00e9","aud":["x","y"],"exp":4102444800,"n":1.5,"k\u0065y":true}"#.utf8), limits: Self.limits, what: "t")
        #expect(t.string(t.member("iss")!) == "aé")
        #expect(t.stringEquals(t.member("iss")!, "aé"))
        #expect(t.elements(t.member("aud")!).map { t.string($0)! } == ["x", "y"])
        #expect(t.int(t.member("exp")!) == 4_102_444_800)
        #expect(t.double(t.member("n")!) == 1.5)
        #expect(t.kind(t.member("key")!) == .true)
        #expect(t.member("missing") == nil)
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
