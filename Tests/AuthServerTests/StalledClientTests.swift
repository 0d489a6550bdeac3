@testable import AuthServer
import Foundation
import JOSE
import Testing

/// Clients that hold connections without finishing their requests, over real loopback sockets:
/// they must not take the server from everyone else. Each test is bounded in connections and time.
@Suite("Stalled clients: body deadline, idle timeout, connections per address", .serialized)
struct StalledClientTests {
    static let login = LiveServer.base + "/app/myapp/auth/providers/anon-user/login"

    @Test(
        "32 connections that send a login's head and never its body: healthz, a login and a refresh still answer in time",
        arguments: StoreKind.available)
    func stalledBodiesHoldNoSlot(kind: StoreKind) async throws {
        // A long body_timeout: what keeps the server answering is that a receiving request holds no slot.
        try await LiveServer.with(kind, extra: #""body_timeout": "60s","#) { s in
            var stalled: [RawConnection] = []
            defer { for c in stalled { c.close() } }
            for _ in 0..<ServerConfig.defaultMaxInFlight {
                let c = try RawConnection.open(s.baseURL)
                stalled.append(c)
                #expect(c.send(RawConnection.postHead(Self.login, length: 2)))
            }
            try await Task.sleep(for: .milliseconds(300))  // every head read, every handler waiting for its body

            let start = ContinuousClock.now
            let health = try await s.call(.GET, "/healthz")
            #expect(health.status == 200, "\(health.body)")
            let login = try await s.call(.POST, Self.login, body: "{}")
            #expect(login.status == 200, "login beside 32 stalled bodies: \(login.status) \(login.body)")
            let refresh = try await s.call(.POST, LiveServer.base + "/auth/session", bearer: login["refresh_token"])
            #expect(refresh.status == 201, "refresh beside 32 stalled bodies: \(refresh.status) \(refresh.body)")
            let elapsed = ContinuousClock.now - start
            // Generous for a machine running every suite at once; held up behind the stalled bodies would be forever.
            #expect(elapsed < .seconds(10), "healthz, login and refresh took \(elapsed.seconds) s")
            for c in stalled { #expect(await c.read(for: 0).closed == false, "a stalled connection was closed before body_timeout") }
        }
    }

    @Test("a body later than body_timeout is 408 RequestTimeout, a dripped one too, and the connection closes")
    func lateBodyIsRequestTimeout() async throws {
        try await LiveServer.with(.sqlite, extra: #""body_timeout": "1s", "idle_timeout": "30s","#) { s in
            let late = try RawConnection.open(s.baseURL)
            defer { late.close() }
            late.send(RawConnection.postHead(Self.login, length: 10) + "{}   ")
            let start = ContinuousClock.now
            let (text, closed) = await late.read(for: 6)
            #expect(text.hasPrefix("HTTP/1.1 408"), "\(text.prefix(200))")
            #expect(text.contains(#""error_code":"RequestTimeout""#), "\(text.suffix(300))")
            #expect(closed, "the connection stayed open after the 408")
            #expect(ContinuousClock.now - start < .seconds(4))

            // One byte every 300 ms keeps the connection busy, never idle: the deadline still ends it.
            let drip = try RawConnection.open(s.baseURL)
            defer { drip.close() }
            drip.send(RawConnection.postHead(Self.login, length: 20))
            var answer = ""
            for _ in 0..<15 where answer.isEmpty {
                drip.send(" ")
                answer = await drip.read(for: 0.3).text
            }
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(200))")
        }
    }

    @Test("a connection that sends nothing is closed after idle_timeout; one with a stalled body too")
    func idleConnectionsAreClosed() async throws {
        try await LiveServer.with(.sqlite, extra: #""body_timeout": "60s", "idle_timeout": "1s","#) { s in
            let silent = try RawConnection.open(s.baseURL)
            defer { silent.close() }
            let stalled = try RawConnection.open(s.baseURL)
            defer { stalled.close() }
            stalled.send(RawConnection.postHead(Self.login, length: 2))
            let start = ContinuousClock.now
            #expect(await silent.read(for: 5).closed, "a silent connection outlived idle_timeout")
            #expect(await stalled.read(for: 5).closed, "a stalled body outlived idle_timeout")
            #expect(ContinuousClock.now - start >= .milliseconds(900))
        }
    }

    @Test("past connections_per_address a connection is closed at once; closing one makes room")
    func connectionsPerAddress() async throws {
        try await LiveServer.with(.sqlite, extra: #""connections_per_address": 4,"#) { s in
            var held = try (0..<4).map { _ in try RawConnection.open(s.baseURL) }
            defer { for c in held { c.close() } }
            // A request on one of them shows each is served.
            held[0].send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await held[0].read(for: 2).text.hasPrefix("HTTP/1.1 200"))

            let fifth = try RawConnection.open(s.baseURL)
            defer { fifth.close() }
            fifth.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let refused = await fifth.read(for: 3)
            #expect(refused.closed && refused.text.isEmpty, "a fifth connection was served: \(refused.text.prefix(100))")

            held.removeLast().close()
            let served = await FaultLoad.eventually(within: 3) {
                guard let c = try? RawConnection.open(s.baseURL) else { return false }
                defer { c.close() }
                c.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                return await c.read(for: 1).text.hasPrefix("HTTP/1.1 200")
            }
            #expect(served, "no room after a connection closed")
        }
    }

    @Test("a client hanging up mid-body is a 400 in the log and the metrics, never an internal error")
    func droppedBodyIsNotAnInternalError() async throws {
        try await LiveServer.with(.sqlite) { s in
            for _ in 0..<3 {
                let c = try RawConnection.open(s.baseURL)
                c.send(RawConnection.postHead(Self.login, length: 100) + #"{"options":"#)
                try await Task.sleep(for: .milliseconds(100))
                c.close()
            }
            #expect(await FaultLoad.eventually(within: 5) { s.logs.all.filter { $0.contains("route=") && $0.contains("login") }.count >= 3 })
            #expect(!s.logs.all.contains { $0.contains("internal error") }, "\(s.logs.all.filter { $0.contains("internal") })")
            let metrics = s.server.metrics.text()
            #expect(!metrics.contains(#"status="500""#), "\(metrics)")
        }
    }

    @Test("idle_timeout, body_timeout and connections_per_address: defaults and bounds")
    func config() throws {
        let parse = { (members: String) in try ServerConfig.parse(#"{"public_url":"http://a",\#(members)"apps":{"x":{}}}"#, directory: "/srv") }
        let defaults = try parse("")
        #expect(defaults.idleTimeout == 60 && defaults.bodyTimeout == 10 && defaults.connectionsPerAddress == 64)
        let set = try parse(#""idle_timeout":"5m","body_timeout":"30s","connections_per_address":8,"#)
        #expect(set.idleTimeout == 300 && set.bodyTimeout == 30 && set.connectionsPerAddress == 8)
        for (bad, path) in [
            (#""idle_timeout":"2h","#, "idle_timeout"), (#""body_timeout":"10m","#, "body_timeout"),
            (#""connections_per_address":0,"#, "connections_per_address"),
        ] {
            #expect {
                try parse(bad)
            } throws: { e in
                (e as? TokenError)?.code == .invalidConfiguration && (e as? TokenError)?.message.hasPrefix(path + ":") == true
            }
        }
    }
}
