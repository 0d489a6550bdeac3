@testable import AuthServer
import Foundation
import JOSE
import Logging
import Testing

/// The hourly sweep is store-wide: with several apps it must keep a spent token's sealed
/// successor as long as the app with the longest `reuse_grace` may still hand it out again,
/// while each app's own grace still decides its retries.
@Suite("The store-wide sweep", .serialized)
struct SweepTests {
    static let apps = #"""
        { "patient": { "refresh_rotation": true, "reuse_grace": "60s", "providers": { "anon-user": {} } },
          "hasty": { "refresh_rotation": true, "reuse_grace": "1s", "providers": { "anon-user": {} } } }
        """#

    @Test(
        "two apps of different grace: the sweep keeps the successor a client of the longer grace may still retry for", arguments: StoreKind.available)
    func sweepKeepsTheLargestGrace(kind: StoreKind) async throws {
        try await LiveServer.with(kind, apps: Self.apps) { s in
            let login = try await s.call(.POST, LiveServer.base + "/app/patient/auth/providers/anon-user/login", body: "{}")
            let spent = try #require(login["refresh_token"])
            let rotated = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: spent)
            let successor = try #require(rotated["refresh_token"])
            let hastyLogin = try await s.call(.POST, LiveServer.base + "/app/hasty/auth/providers/anon-user/login", body: "{}")
            let hastySpent = try #require(hastyLogin["refresh_token"])
            let hastySuccessor = try #require(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: hastySpent)["refresh_token"])
            // Spent more than two seconds ago (what a 1 s grace erases), well inside 60 s.
            try await Task.sleep(for: .seconds(3.2))
            // The sweep of every server opened on this configuration keeps the largest grace,
            // whichever app a dictionary lists first.
            let config = try ServerConfig.load(path: s.directory + "/server.json", environment: [:])
            for _ in 0..<8 {
                let server = try await AuthServer.open(config: config, logger: Logger(label: "sweep") { _ in SwiftLogNoOpLogHandler() })
                let sweeper = try #require(server.backgroundServices().compactMap { $0 as? Sweeper }.first)
                #expect(sweeper.grace == 60)
                _ = try await sweeper.service.sweep(grace: sweeper.grace)
                try await server.close()
            }
            // The client that lost the answer retries with the spent token: the same successor.
            let retry = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: spent)
            #expect(retry.status == 201 && retry["refresh_token"] == successor, "\(retry.body)")
            // The other app's client, past its own 1 s grace: reuse, and its session ends.
            let late = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: hastySpent)
            #expect(late.status == 401, "\(late.body)")
            #expect(try await s.call(.POST, LiveServer.base + "/auth/session", bearer: hastySuccessor).status == 401)
        }
    }
}
