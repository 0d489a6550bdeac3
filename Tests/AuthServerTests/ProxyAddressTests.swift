@testable import AuthServer
import Foundation
import JOSE
import Testing

/// Which address the per-address limits count behind a proxy: `trusted_proxy_header` is honoured
/// only from `trusted_proxies`, and then only its right-most address that is not a trusted proxy.
@Suite("Client addresses behind trusted proxies", .serialized)
struct ProxyAddressTests {
    static let login = LiveServer.base + "/app/myapp/auth/providers/anon-user/login"

    /// Three anonymous logins with `forwarded` as X-Forwarded-For each (per call); the statuses.
    static func logins(_ s: LiveServer, _ forwarded: [String]) async throws -> [Int] {
        var statuses: [Int] = []
        for value in forwarded {
            statuses.append(try await s.call(.POST, login, body: "{}", headers: [("X-Forwarded-For", value)]).status)
        }
        return statuses
    }

    @Test("a client cannot pick its address by writing X-Forwarded-For: the right-most untrusted address is counted", arguments: StoreKind.available)
    func spoofedElementsAreIgnored(kind: StoreKind) async throws {
        let extra =
            #""trusted_proxy_header": "X-Forwarded-For", "trusted_proxies": ["127.0.0.1/32", "10.0.0.0/8"], "limits": {"login_per_address": "2/5m"},"#
        try await LiveServer.with(kind, extra: extra) { s in
            // The client wrote a new first element each time; our proxies appended the real one.
            let spoofed = try await Self.logins(s, (1...3).map { "198.51.100.\($0), 203.0.113.9, 10.1.2.3" })
            #expect(spoofed == [200, 200, 429], "\(spoofed)")
            // Another client behind the same proxies has its own count.
            #expect(try await Self.logins(s, ["203.0.113.10"]) == [200])
            // IPv6 clients count by their /64.
            let v6 = try await Self.logins(s, ["2001:db8:1:2::1", "2001:db8:1:2:ffff::9", "[2001:db8:1:2::3]"])
            #expect(v6 == [200, 200, 429], "\(v6)")
        }
    }

    @Test("from a peer outside trusted_proxies the header is ignored: the peer is the client", arguments: StoreKind.available)
    func untrustedPeerIsTheClient(kind: StoreKind) async throws {
        let extra = #""trusted_proxy_header": "X-Forwarded-For", "trusted_proxies": ["10.0.0.0/8"], "limits": {"login_per_address": "2/5m"},"#
        try await LiveServer.with(kind, extra: extra) { s in
            let statuses = try await Self.logins(s, ["203.0.113.1", "203.0.113.2", "203.0.113.3"])
            #expect(statuses == [200, 200, 429], "\(statuses)")
        }
    }

    @Test("resolve: right-most untrusted, every element an address; IPv6 keyed on the /64")
    func resolution() throws {
        let proxies = try ["10.0.0.0/8", "2001:db8:ffff::/48", "127.0.0.1"].map { try #require(IPNetwork(cidr: $0)) }
        func resolve(_ peer: String, _ header: [String]) -> String? { ClientAddress.resolve(peer: peer, forwarded: header, proxies: proxies) }
        #expect(resolve("10.0.0.1", ["1.1.1.1, 2.2.2.2"]) == "2.2.2.2")
        #expect(resolve("10.0.0.1", ["1.1.1.1, 2.2.2.2, 10.9.9.9"]) == "2.2.2.2")
        #expect(resolve("10.0.0.1", ["1.1.1.1", "2.2.2.2"]) == "2.2.2.2", "several header lines are one list")
        #expect(resolve("10.0.0.1", ["evil, 10.9.9.9"]) == "10.9.9.9", "a non-address ends the walk at the last trusted hop")
        #expect(resolve("10.0.0.1", ["2.2.2.2, not-an-ip"]) == "10.0.0.1")
        #expect(resolve("10.0.0.1", []) == "10.0.0.1")
        #expect(resolve("192.0.2.7", ["1.1.1.1"]) == "192.0.2.7", "an untrusted peer's header is ignored")
        #expect(resolve("::ffff:127.0.0.1", ["2.2.2.2"]) == "2.2.2.2", "an IPv4-mapped peer is its IPv4 address")
        #expect(resolve("2001:db8:ffff:1::5", ["2001:db8:1::7"]) == "2001:db8:1::7")
        #expect(ClientAddress.key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64")
        #expect(ClientAddress.key("2001:db8:1:2::9") == ClientAddress.key("[2001:db8:1:2:ffff::1]"))
        #expect(ClientAddress.key("::ffff:192.0.2.1") == "192.0.2.1")
        #expect(ClientAddress.key("192.0.2.1") == "192.0.2.1")
        for bad in ["10.0.0.0/33", "10.0.0.0/", "host.example", "", "::/129", "10.0.0.0/8/8", "1.2.3.4/-1"] {
            #expect(IPNetwork(cidr: bad) == nil, "\(bad)")
        }
        #expect(try #require(IPNetwork(cidr: "0.0.0.0/0")).contains([8, 8, 8, 8]))
        #expect(try #require(IPNetwork(cidr: "192.168.0.0/23")).contains([192, 168, 1, 200]))
        #expect(try #require(IPNetwork(cidr: "192.168.0.0/23")).contains([192, 168, 2, 0]) == false)
    }

    @Test("config: trusted_proxies goes with trusted_proxy_header; errors name the JSON path")
    func config() throws {
        let parse = { (members: String) in try ServerConfig.parse(#"{"public_url":"http://a",\#(members)"apps":{"x":{}}}"#, directory: "/srv") }
        let config = try parse(#""trusted_proxy_header":"X-Forwarded-For","trusted_proxies":["10.0.0.0/8","2001:db8::/32","192.0.2.1"],"#)
        #expect(config.trustedProxies.map(\.prefixLength) == [8, 32, 32])
        for (members, path) in [
            (#""trusted_proxy_header":"X-Forwarded-For","#, "trusted_proxies:"),
            (#""trusted_proxies":["10.0.0.0/8"],"#, "trusted_proxy_header:"),
            (#""trusted_proxy_header":"X-Forwarded-For","trusted_proxies":["10.0.0.0/40"],"#, "trusted_proxies:"),
            (#""trusted_proxy_header":"X-Forwarded-For","trusted_proxies":[8],"#, "trusted_proxies:"),
        ] {
            #expect {
                try parse(members)
            } throws: { e in
                (e as? TokenError)?.code == .invalidConfiguration && (e as? TokenError)?.message.hasPrefix(path) == true
            }
        }
    }
}
