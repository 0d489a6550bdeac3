import JOSE
import Testing
@testable import Identity

/// The CBOR decoder against RFC 8949 Appendix A's examples (those of the kinds WebAuthn uses), and
/// hostile input refused with `malformed_cbor`.
@Suite struct CBORTests {
    static func decode(_ hex: String, limits: CBORLimits = .webAuthn) throws -> CBORValue {
        try CBOR.decode(Hex.decode(hex)!, limits: limits)
    }

    static func map(_ entries: [(CBORKey, CBORValue)]) -> CBORValue { .map(CBORMap(entries.map { (key: $0.0, value: $0.1) })!) }

    /// RFC 8949 Appendix A, Table 6: every example but floats, tags, `undefined`, other simple
    /// values and indefinite lengths, which WebAuthn never uses and the decoder refuses.
    @Test func rfc8949AppendixAExamples() throws {
        let vectors: [(String, CBORValue)] = [
            ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)),
            ("1818", .unsigned(24)), ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)),
            ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
            ("1bffffffffffffffff", .unsigned(18_446_744_073_709_551_615)),
            ("3bffffffffffffffff", .negative(18_446_744_073_709_551_615)),
            ("20", .negative(0)), ("29", .negative(9)), ("3863", .negative(99)), ("3903e7", .negative(999)),
            ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
            ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
            ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")), ("62225c", .text("\"\\")),
            ("62c3bc", .text("\u{00fc}")), ("63e6b0b4", .text("\u{6c34}")), ("64f0908591", .text("\u{10151}")),
            ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
            ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
            ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned(UInt64($0)) })),
            ("a0", Self.map([])),
            ("a201020304", Self.map([(.int(1), .unsigned(2)), (.int(3), .unsigned(4))])),
            ("a26161016162820203", Self.map([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
            ("826161a161626163", .array([.text("a"), Self.map([(.text("b"), .text("c"))])])),
            (
                "a56161614161626142616361436164614461656145",
                Self.map([("a", "A"), ("b", "B"), ("c", "C"), ("d", "D"), ("e", "E")].map { (CBORKey.text($0.0), CBORValue.text($0.1)) })
            ),
        ]
        for (hex, expected) in vectors {
            #expect(try Self.decode(hex) == expected, "\(hex)")
        }
        #expect(try Self.decode("3bffffffffffffffff").intValue == nil)
        #expect(try Self.decode("3863").intValue == -100)
    }

    /// A COSE key (RFC 9053 §7.1.1, WebAuthn §6.5.1.1's example shape) decodes with integer keys.
    @Test func coseKeyShape() throws {
        let x = [UInt8](repeating: 0x11, count: 32), y = [UInt8](repeating: 0x22, count: 32)
        let hex = "a5010203262001215820" + Hex.encode(x) + "225820" + Hex.encode(y)
        let key = try #require(try Self.decode(hex).mapValue)
        #expect(key[1]?.intValue == 2)
        #expect(key[3]?.intValue == -7)
        #expect(key[-1]?.intValue == 1)
        #expect(key[-2]?.bytesValue == x)
        #expect(key[-3]?.bytesValue == y)
        // The same item followed by more bytes: a prefix, and where it ends.
        let (value, end) = try CBOR.decodePrefix(Hex.decode(hex + "a0")!, from: 0)
        #expect(value.mapValue == key)
        #expect(end == hex.count / 2)
    }

    /// RFC 8949 Appendix A's floats, tags, `undefined`, simple values and indefinite lengths, and
    /// hostile shapes: each refused with `malformed_cbor`, never a crash or a huge allocation.
    @Test func refusesWhatWebAuthnDoesNotUse() throws {
        let refused = [
            "f90000", "fa47c35000", "fb3ff199999999999a",  // floats
            "c074323031332d30332d32315432303a30343a30305a", "d74401020304",  // tags
            "f7", "f0", "f818", "f8ff",  // undefined, simple values
            "5f42010243030405ff", "7f657374726561646d696e67ff", "9fff", "bf61610161629f0203ffff",  // indefinite
            "1c", "3d", "5e", "7c", "9d", "be",  // reserved additional information
            "", "18", "1900", "1a000000", "1b00000000000000",  // truncated arguments
            "4401020304ff", "0000",  // trailing bytes
            "5b7fffffffffffffff00", "5affffffff", "44010203", "646162",  // lengths past the end
            "9b7fffffffffffffff", "bb7fffffffffffffff", "830102",  // counts past the end
            "a2616101616102", "a201000101",  // duplicate keys
            "a1f400", "a1400100", "a18000", "a1a000", "a11bffffffffffffffff00",  // keys neither int nor text (nor in Int64)
            "62c328", "61ff",  // text that is not UTF-8
        ]
        for hex in refused {
            #expect(throws: TokenError(.malformedCBOR, ""), "\(hex)") { try Self.decode(hex) }
        }
    }

    @Test func boundsAreEnforced() throws {
        let deep = String(repeating: "81", count: 9) + "00"
        #expect(throws: TokenError(.malformedCBOR, "")) { try Self.decode(deep) }
        #expect(try Self.decode(String(repeating: "81", count: 8) + "00") != .null)
        let wide = "9841" + String(repeating: "00", count: 65)
        #expect(throws: TokenError(.malformedCBOR, "")) { try Self.decode(wide) }
        let many = "88" + String(repeating: "88" + String(repeating: "00", count: 8), count: 8)  // 73 items
        #expect(throws: TokenError(.malformedCBOR, "")) { try Self.decode(many, limits: CBORLimits(maxTotalItems: 72)) }
        #expect(try Self.decode(many, limits: CBORLimits(maxTotalItems: 73)).arrayValue?.count == 8)
        let big = [UInt8](repeating: 0, count: 16 * 1024 + 1)
        #expect(throws: TokenError(.malformedCBOR, "")) { try CBOR.decode(big) }
        #expect(throws: TokenError(.malformedCBOR, "")) { try CBOR.decodePrefix([0], from: 2) }
    }
}
