@testable import AuthServer
import Foundation
import Hummingbird
import JOSE
import Logging
import ServiceLifecycle
import Testing

/// Every 429 carries `Retry-After`, also when the refusal noted no wait of its own (the password
/// hasher's full queue: "too many password checks are waiting").
@Suite struct RetryAfterTests {
    @Test(arguments: StoreKind.available) func every429SaysWhenToRetry(_ kind: StoreKind) async throws {
        try await LiveServer.with(kind) { live in
            // The server's routes and middleware, plus one route refusing as the hasher's queue does.
            let router = Router(context: AuthRequestContext.self)
            live.server.addRoutes(to: router)
            router.get("/test/queue-full") { _, _ -> Response in
                throw TokenError(.tooManyRequests, "too many password checks are waiting; try again shortly")
            }
            let (stream, continuation) = AsyncStream<Int>.makeStream()
            let app = Application(
                router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
                logger: Logger(label: "test"))
            let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: Logger(label: "test")))
            let running = Task {
                defer { continuation.finish() }  // a server that never listens ends the wait
                try await group.run()
            }
            var port = 0
            for await p in stream { port = p; break }
            try #require(port != 0, "the test server stopped before it listened")
            let answer = try await LiveServer.get("http://127.0.0.1:\(port)/test/queue-full")
            await group.triggerGracefulShutdown()
            try await running.value
            #expect(answer.status == 429 && answer.errorCode == "TooManyRequests")
            #expect((Int(answer.header("Retry-After") ?? "") ?? 0) > 0, "Retry-After: \(answer.header("Retry-After") ?? "none")")
        }
    }
}
