import Foundation
import Identity
import ProviderStandIn
import Testing

/// An ``AsyncHTTPClientTransport`` released without `shutdown()` (a `throw` between creating and
/// shutting it down, as in most callers' error paths) must not stop the process: a bare
/// AsyncHTTPClient traps in its deinit ("Client not shut down before the deinit").
@Suite struct TransportLifetimeTests {
    @Test func aTransportReleasedWithoutShutdownDoesNotStopTheProcess() async throws {
        let standIn = try await ProviderStandIn.start()
        weak var released: AsyncHTTPClientTransport?
        do {
            let transport = AsyncHTTPClientTransport()
            released = transport
            let answer = try await transport.send(HTTPRequest(url: standIn.googleJWKSURL))
            #expect(answer.status == 200)  // a pooled connection is open when it goes
        }
        #expect(released == nil)  // its deinit ran, and the process is still here
        // A new transport works after the old one's background shutdown.
        let next = AsyncHTTPClientTransport()
        #expect(try await next.send(HTTPRequest(url: standIn.googleJWKSURL)).status == 200)
        try await next.shutdown()
        try await standIn.shutdown()
    }
}
