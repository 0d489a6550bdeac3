import Foundation
import Testing
import JOSE

/// Secret files are read one way everywhere.
@Suite struct SecretFileTests {
    /// A private temporary directory, removed afterwards.
    static func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-secret-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        return try body(dir)
    }

    static func write(_ bytes: [UInt8], to path: String, mode: Int = 0o600) throws {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func oneTrailingNewlineIsDropped() throws {
        try Self.withDirectory { dir in
            let secret = Array("0123456789abcdef0123456789abcdef".utf8)
            for (suffix, expected) in [
                ([UInt8](), secret), ([0x0A], secret), ([0x0D, 0x0A], secret),
                ([0x0A, 0x0A], secret + [0x0A]), ([0x20], secret + [0x20]),
            ] {
                try Self.write(secret + suffix, to: dir + "/s")
                #expect(try SecretFile.read(path: dir + "/s") == expected)
            }
        }
    }

    @Test func emptyAndOversizedAreRefused() throws {
        try Self.withDirectory { dir in
            try Self.write([], to: dir + "/empty")
            #expect(throws: TokenError(.invalidKey, "")) { try SecretFile.read(path: dir + "/empty") }
            try Self.write([0x0A], to: dir + "/newline")
            #expect(throws: TokenError(.invalidKey, "")) { try SecretFile.read(path: dir + "/newline") }
            try Self.write([UInt8](repeating: 0x41, count: SecretFile.maxBytes + 1), to: dir + "/big")
            #expect(throws: TokenError(.invalidInput, "")) { try SecretFile.read(path: dir + "/big") }
            #expect(throws: TokenError(.invalidInput, "")) { try SecretFile.read(path: dir + "/missing") }
        }
    }

    @Test func ownerOnlyRefusesFilesOthersCanOpen() throws {
        try Self.withDirectory { dir in
            let path = dir + "/key"
            for mode in [0o640, 0o604, 0o620, 0o644] {
                try Self.write([1, 2, 3], to: path, mode: mode)
                let error = #expect(throws: TokenError.self) { try SecretFile.readBytes(path: path, limit: 16, ownerOnly: true) }
                #expect(error?.code == .invalidKey)
                #expect(error?.message.contains("chmod 600 \(path)") == true)
                #expect(try SecretFile.readBytes(path: path, limit: 16) == [1, 2, 3])
            }
            for mode in [0o600, 0o400] {
                try Self.write([1, 2, 3], to: path, mode: mode)
                #expect(try SecretFile.readBytes(path: path, limit: 16, ownerOnly: true) == [1, 2, 3])
            }
        }
    }

    @Test func regularFileOnlyRefusesOthersUnread() throws {
        try Self.withDirectory { dir in
            #expect(try SecretFile.readBytes(path: "/dev/null", limit: 16) == [])
            for (path, kind) in [("/dev/zero", "a character device"), (dir, "a directory")] {
                let error = #expect(throws: TokenError.self) { try SecretFile.readBytes(path: path, limit: 16, regularFileOnly: true) }
                #expect(error?.code == .invalidInput && error?.message == "\(path) is not a regular file (\(kind))")
            }
            try Self.write([1, 2, 3], to: dir + "/plain")
            #expect(try SecretFile.readBytes(path: dir + "/plain", limit: 16, regularFileOnly: true) == [1, 2, 3])
        }
    }
}
