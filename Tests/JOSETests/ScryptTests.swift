import JOSE
import Testing

/// scrypt on OpenSSL's EVP_KDF against RFC 7914's vector, and the self-describing password hash.
@Suite struct ScryptTests {
    static func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = s.startIndex
        while i < s.endIndex {
            let j = s.index(i, offsetBy: 2)
            out.append(UInt8(s[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// RFC 7914 §12, the third vector: P = "pleaseletmein", S = "SodiumChloride", N = 16384, r = 8, p = 1.
    @Test func rfc7914Vector() throws {
        let out = try Scrypt.derive(
            password: Array("pleaseletmein".utf8), salt: Array("SodiumChloride".utf8),
            parameters: Scrypt.Parameters(logN: 14, r: 8, p: 1), length: 64)
        #expect(
            out
                == Self.hex(
                    "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2"
                        + "d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887"))
    }

    @Test func defaultsAreRFCsInteractiveCostAndTake128MiB() {
        #expect(Scrypt.Parameters.default == Scrypt.Parameters(logN: 17, r: 8, p: 1))
        #expect(Scrypt.Parameters.default.memoryBytes == 128 << 20)
    }

    @Test(arguments: [(0, 8, 1), (25, 8, 1), (17, 0, 1), (17, 33, 1), (17, 8, 0), (17, 8, 17), (20, 32, 16)])
    func parametersOutOfRangeAreRefused(_ p: (Int, Int, Int)) {
        #expect(throws: TokenError(.invalidInput, "")) {
            try Scrypt.derive(password: [1], salt: Array(repeating: 0, count: 16), parameters: Scrypt.Parameters(logN: p.0, r: p.1, p: p.2))
        }
    }

    @Test func shortSaltAndHugePasswordAreRefused() {
        let fast = Scrypt.Parameters(logN: 4, r: 1, p: 1)
        #expect(throws: TokenError(.invalidInput, "")) { try Scrypt.derive(password: [1], salt: [1, 2, 3], parameters: fast) }
        #expect(throws: TokenError(.invalidInput, "")) {
            try Scrypt.derive(
                password: Array(repeating: 65, count: Scrypt.maxPasswordBytes + 1), salt: Array(repeating: 0, count: 16), parameters: fast)
        }
    }

    @Test func hashRoundTripsThroughItsStringAndChecksThePassword() throws {
        let fast = Scrypt.Parameters(logN: 10, r: 8, p: 1)
        let h = try PasswordHash.make(password: Array("pässwörd".utf8), parameters: fast)
        #expect(h.encoded.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        let parsed = try PasswordHash(parsing: h.encoded)
        #expect(parsed == h)
        #expect(try parsed.verify(password: Array("pässwörd".utf8)))
        #expect(try !parsed.verify(password: Array("passwörd".utf8)))
        #expect(try !parsed.verify(password: []))
        // A fresh salt each time: the same password never hashes to the same string.
        #expect(try PasswordHash.make(password: Array("pässwörd".utf8), parameters: fast).encoded != h.encoded)
    }

    @Test func weakerParametersAskForARehash() throws {
        let h = try PasswordHash.make(password: Array("secret".utf8), parameters: Scrypt.Parameters(logN: 10, r: 8, p: 1))
        #expect(h.needsRehash(for: .default))
        #expect(!h.needsRehash(for: Scrypt.Parameters(logN: 10, r: 8, p: 1)))
    }

    @Test(arguments: [
        "", "$bcrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=99,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1$AAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAA",
        "$scrypt$ln=10,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA$",
    ])
    func malformedStoredHashesAreRefused(_ text: String) {
        #expect(throws: TokenError(.invalidInput, "")) { try PasswordHash(parsing: text) }
    }

    @Test func theDefaultCostDerives() throws {
        let h = try PasswordHash.make(password: Array("correct horse battery staple".utf8))
        #expect(h.parameters == .default)
        #expect(try h.verify(password: Array("correct horse battery staple".utf8)))
    }
}
