import Foundation
import JOSE
import Testing
@_spi(Testing) import SessionStoreSQLite
@_spi(Testing) @testable import Sessions

/// Signing keys at rest (issue 11 item 1): the SQLite store and the master key file are the owner's alone.
@Suite struct KeysAtRestTests {
    static func withDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokentool-atrest-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        return try await body(dir)
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    static func write(_ bytes: [UInt8], to path: String, mode: Int) throws {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test func newSQLiteStoreAndItsWALAreOwnerOnly() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/s.sqlite"
            let store = try await SQLiteSessionStore.open(path: path)
            // A write makes SQLite create the -wal and -shm files.
            let sessions = Conformance.manager(store, TestClock())
            _ = try await sessions.ensureUser(id: "alice")
            _ = try await sessions.issueTokens(userID: "alice")
            for file in [path, path + "-wal", path + "-shm"] {
                #expect(FileManager.default.fileExists(atPath: file), "\(file)")
                #expect(try Self.mode(file) == 0o600, "\(file)")
            }
            try await store.close()
        }
    }

    @Test func existingSQLiteStoreOthersCanReadIsRefused() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/s.sqlite"
            try await SQLiteSessionStore.open(path: path).close()
            for (file, mode) in [(path, 0o644), (path, 0o640), (path + "-wal", 0o644)] {
                if !FileManager.default.fileExists(atPath: file) { _ = FileManager.default.createFile(atPath: file, contents: Data()) }
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
                let error = await #expect(throws: TokenError.self) { try await SQLiteSessionStore.open(path: path) }
                #expect(error?.code.rawValue == "invalid_configuration")
                #expect(error?.message.contains("chmod 600 \(path)") == true)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            }
            try await SQLiteSessionStore.open(path: path).close()
        }
    }

    @Test func masterKeyFileOthersCanReadIsRefused() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/master.key"
            let key = [UInt8](repeating: 7, count: 32)
            try Self.write(key, to: path, mode: 0o644)
            let error = #expect(throws: TokenError.self) { try MasterKeyFile.read(path: path) }
            #expect(error?.code == .invalidKey)
            #expect(error?.message.contains("chmod 600 \(path)") == true)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
            #expect(throws: TokenError(.invalidKey, "")) { try MasterKeyFile.read(path: path) }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            #expect(try MasterKeyFile.read(path: path) == key)
        }
    }

    @Test func masterKeyFileFormats() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/master.key"
            let key = (0..<32).map { UInt8($0) }
            let hex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
            for text in [hex + "\n", hex.uppercased(), Base64URL.encode(key) + "\n"] {
                try? FileManager.default.removeItem(atPath: path)
                try Self.write(Array(text.utf8), to: path, mode: 0o600)
                #expect(try MasterKeyFile.read(path: path) == key)
            }
            for bad in [String(hex.dropLast(2)), "zz" + hex.dropFirst(2), Base64URL.encode(key + [0])] {
                try? FileManager.default.removeItem(atPath: path)
                try Self.write(Array(bad.utf8), to: path, mode: 0o600)
                #expect(throws: TokenError(.invalidKey, "")) { try MasterKeyFile.read(path: path) }
            }
        }
    }

    @Test func masterKeyFileCreateIsOwnerOnlyAndNeverOverwrites() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/master.key"
            let key = try MasterKeyFile.create(path: path)
            #expect(key.count == 32)
            #expect(try Self.mode(path) == 0o600)
            #expect(try MasterKeyFile.read(path: path) == key)
            #expect(throws: TokenError.self) { try MasterKeyFile.create(path: path) }
            #expect(try MasterKeyFile.read(path: path) == key)
            #expect(try MasterKeyFile.create(path: dir + "/other.key") != key)
        }
    }

    /// The CLI refuses both, exit 2, saying how to fix it.
    @Test func cliRefusesKeysOthersCanRead() async throws {
        try await Self.withDirectory { dir in
            let store = dir + "/s.sqlite", key = dir + "/master.key"
            try Self.write([UInt8](repeating: 9, count: 32), to: key, mode: 0o644)
            let badKey = try await CLITests.tokentool(["token", "issue", "--store", store, "--master-key-file", key, "--sub", "alice", "--json"])
            #expect(badKey.status == 2)
            #expect(badKey.errorCode == "invalid_key")
            #expect(badKey.stdout.contains("chmod 600"))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
            let ok = try await CLITests.tokentool(["token", "issue", "--store", store, "--master-key-file", key, "--sub", "alice", "--json"])
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(try Self.mode(store) == 0o600)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
            let badStore = try await CLITests.tokentool(["token", "issue", "--store", store, "--master-key-file", key, "--sub", "alice", "--json"])
            #expect(badStore.status == 2)
            #expect(badStore.errorCode == "invalid_configuration")
        }
    }
}
