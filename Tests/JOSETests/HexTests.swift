import JOSE
import Testing

/// The one hex encoder and the one random-id maker.
@Suite struct HexTests {
    @Test func encodesAsFormatDid() {
        let all = (0...255).map { UInt8($0) }
        #expect(Hex.encode(all) == all.map { b in String(b, radix: 16).count == 1 ? "0" + String(b, radix: 16) : String(b, radix: 16) }.joined())
        #expect(Hex.encode([0x0f, 0xa0]) == "0fa0")
        #expect(Hex.encode([0x0f, 0xa0], uppercase: true) == "0FA0")
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test func decodesEitherCaseAndRefusesTheRest() {
        #expect(Hex.decode("0fA0") == [0x0f, 0xa0])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("0") == nil)
        #expect(Hex.decode("0g") == nil)
        #expect(Hex.decode(" 00") == nil)
        let bytes = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        #expect(Hex.decode(Hex.encode(bytes, uppercase: true)) == bytes)
    }

    @Test func randomIDsKeepTheirShapes() throws {
        let b64url = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let id = try RandomID.make()
        #expect(id.count == 22 && id.allSatisfy(b64url.contains))
        let secret = try RandomID.base64URL(bytes: 32)
        #expect(secret.count == 43 && secret.allSatisfy(b64url.contains))
        let hex = try RandomID.hex(bytes: 12)
        #expect(hex.count == 24 && hex.allSatisfy(Set("0123456789abcdef").contains))
        #expect(try RandomID.make() != RandomID.make())
    }
}
