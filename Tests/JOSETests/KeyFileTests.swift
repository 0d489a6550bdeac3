import Foundation
import Testing
import JOSE

/// Key files are read one way everywhere (`KeyFile`), whatever their format; durations too.
@Suite struct KeyFileTests {
    static let thumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"  // RFC 7638 §3.1

    @Test func everyFormatOfOneKeyReadsAsThatKey() throws {
        let key = try JWK(json: ThumbprintTests.rfc7638Key)
        let pem = try key.pem()
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: base64))
        try SecretFileTests.withDirectory { dir in
            let files: [(String, [UInt8])] = [
                ("k.pem", Array(pem.utf8)), ("k.der", Array(der)), ("k.jwk", Array(ThumbprintTests.rfc7638Key.utf8)),
                ("k.jwks", Array(#"{"keys":[\#(ThumbprintTests.rfc7638Key)]}"#.utf8)),
            ]
            for (name, bytes) in files {
                try SecretFileTests.write(bytes, to: dir + "/" + name)
                #expect(try KeyFile.readSingle(path: dir + "/" + name).thumbprint() == Self.thumbprint, "\(name)")
                #expect(try KeyFile.read(path: dir + "/" + name).keys.count == 1, "\(name)")
            }
            if case .set = try KeyFile.read(path: dir + "/k.jwks") {} else { Issue.record("a JWKS file is read as a set") }
        }
    }

    @Test func refusalsNameTheFileAndKeepTheirCode() throws {
        try SecretFileTests.withDirectory { dir in
            let two =
                #"{"keys":[{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow","kid":"a"},{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow","kid":"b"}]}"#
            for (name, bytes, code) in [
                ("empty", [UInt8](), "invalid_key"), ("junk", Array("not a key".utf8), "invalid_key"),
                ("two.jwks", Array(two.utf8), "invalid_input"), ("bad.json", Array("{\"kty\":".utf8), "invalid_key"),
            ] {
                try SecretFileTests.write(bytes, to: dir + "/" + name)
                let error = #expect(throws: TokenError.self) { try KeyFile.readSingle(path: dir + "/" + name) }
                #expect(error?.code.rawValue == code, "\(name)")
                #expect(error?.message.contains(name) == true, "\(name): \(error?.message ?? "")")
            }
            let missing = #expect(throws: TokenError.self) { try KeyFile.read(path: dir + "/none") }
            #expect(missing?.code == .invalidInput)
        }
        let url = #expect(throws: TokenError.self) { try KeyFile.read(path: "https://example.com/jwks.json") }
        #expect(url?.code == .invalidInput)
    }

    @Test func secretFilesAreHMACKeys() throws {
        try SecretFileTests.withDirectory { dir in
            try SecretFileTests.write(Array("0123456789abcdef0123456789abcdef\n".utf8), to: dir + "/s")
            let key = try KeyFile.readSecret(path: dir + "/s")
            #expect(key.keyType == .oct)
            // RFC 7638 members of an oct key: k is the secret without the newline.
            #expect(try key.thumbprint() == JWK(hmacSecret: Array("0123456789abcdef0123456789abcdef".utf8)).thumbprint())
        }
    }

    @Test(arguments: [("90s", 90), ("30m", 1800), ("12h", 43_200), ("60d", 5_184_000), ("1w", 604_800), ("1h30m", 5400)] as [(String, Int64)])
    func durations(text: String, seconds: Int64) {
        #expect(DurationText.seconds(text) == seconds)
    }

    @Test func notDurations() {
        for bad in ["", "45", "5x", "m", "1.5h", "-1h", "+1h", " 1h", "1h ", "٥m", "1234567890s", String(repeating: "1s", count: 17)] {
            #expect(DurationText.seconds(bad) == nil, "\(bad)")
        }
        #expect(DurationText.seconds("45", bareSeconds: true) == 45)
        #expect(DurationText.seconds("1w", units: "smhd") == nil)
    }
}
