import Foundation
import JOSE
import Testing

@Suite("Server skeleton over HTTP", .serialized)
struct SkeletonTests {
    @Test("healthz, metrics, location; unknown app, path and method", arguments: StoreKind.available)
    func basics(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let health = try await s.call(.GET, "/healthz")
            #expect(health.status == 200 && health.json == .object(["status": "ok"]))
            #expect(health.header("content-type") == "application/json")

            let location = try await s.call(.GET, LiveServer.base + "/app/myapp/location")
            #expect(location.status == 200)
            #expect(
                location.object == [
                    "deployment_model": "GLOBAL", "location": "local", "hostname": "http://auth.test", "ws_hostname": "ws://auth.test",
                ])

            let noApp = try await s.call(.GET, LiveServer.base + "/app/other/location")
            #expect(noApp.status == 404 && noApp.errorCode == "AppNotFound")
            #expect(noApp["link"] == "http://auth.test/errors#AppNotFound")

            let noPath = try await s.call(.GET, "/nothing/here")
            #expect(noPath.status == 404 && noPath.errorCode == "NotFound")
            #expect(noPath.header("content-type") == "application/json")

            let wrongMethod = try await s.call(.DELETE, LiveServer.base + "/app/myapp/location")
            #expect(wrongMethod.status == 405 && wrongMethod.errorCode == "MethodNotAllowed")
            // RFC 9110 §15.5.6: a 405 names the methods the path takes.
            #expect(wrongMethod.header("allow") == "GET")
            let session = try await s.call(.GET, LiveServer.base + "/auth/session")
            #expect(session.status == 405 && session.header("allow") == "DELETE, POST")
            let keys = try await s.call(.POST, LiveServer.base + "/auth/api_keys/0123456789abcdef01234567")
            #expect(keys.status == 405 && keys.header("allow") == "DELETE, GET")
            #expect(noPath.header("allow") == nil)

            // Not public: ExposureTests shows who gets it.
            #expect(try await s.call(.GET, "/metrics").status == 404)
        }
    }
}
