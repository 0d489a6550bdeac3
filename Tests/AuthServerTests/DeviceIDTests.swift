import Foundation
import JOSE
import Testing

/// A login's device id (docs/server.md, the login bodies): realm-web sends its stored id back as
/// `{"$oid": hex}`, the realm-core SDKs as a 24-hex string or the zero id; the answer's
/// `device_id` and every access token's `baas_device_id` name the session's device.
@Suite("Device ids and baas_device_id", .serialized)
struct DeviceIDTests {
    static let base = LiveServer.base
    static let anonLogin = base + "/app/myapp/auth/providers/anon-user/login"

    /// The claims of a JWT, read without verifying (as realm-web's `user.deviceId` reads them).
    static func claims(_ jwt: String?) throws -> JSONObject {
        let parts = try #require(jwt).split(separator: ".")
        let payload = try Base64URL.decode(String(parts[1]), what: "payload")
        return try #require(try JSONValue(parsing: String(decoding: payload, as: UTF8.self)).objectValue)
    }

    static func isObjectID(_ s: String?) -> Bool {
        guard let s, s.utf8.count == 24 else { return false }
        return s.allSatisfy { "0123456789abcdef".contains($0) }
    }

    @Test("{\"$oid\"} and a 24-hex string are echoed and signed as baas_device_id; refreshed tokens keep it", arguments: StoreKind.available)
    func givenID(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            let oid =
                #"{"options":{"device":{"platform":"node","platformVersion":"20.11.1","sdkVersion":"2.0.1","deviceId":{"$oid":"65A1B2C3D4E5F60718293A4B"}}}}"#
            let login = try await s.call(.POST, Self.anonLogin, body: oid)
            #expect(login.status == 200 && login["device_id"] == "65a1b2c3d4e5f60718293a4b")
            #expect(try Self.claims(login["access_token"])["baas_device_id"] == "65a1b2c3d4e5f60718293a4b")
            let refreshed = try await s.call(.POST, Self.base + "/auth/session", bearer: login["refresh_token"])
            #expect(try Self.claims(refreshed["access_token"])["baas_device_id"] == "65a1b2c3d4e5f60718293a4b")

            let plain = #"{"options":{"device":{"deviceId":"0123456789abcdef01234567","platform":"iOS"}}}"#
            let second = try await s.call(.POST, Self.anonLogin, body: plain)
            #expect(second["device_id"] == "0123456789abcdef01234567")
            #expect(try Self.claims(second["access_token"])["baas_device_id"] == "0123456789abcdef01234567")
            let list = try #require(try await s.call(.GET, Self.base + "/auth/sessions", bearer: second["access_token"]).json?.arrayValue)
            #expect(list.first?.objectValue?["device_id"] == "0123456789abcdef01234567")
        }
    }

    @Test("no device id, or the zero id: a new ObjectId, kept with the session and signed", arguments: StoreKind.available)
    func newID(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            for body in ["{}", #"{"options":{"device":{"deviceId":{"$oid":"000000000000000000000000"},"platform":"node"}}}"#] {
                let before = Int64(Date().timeIntervalSince1970)
                let login = try await s.call(.POST, Self.anonLogin, body: body)
                let id = try #require(login["device_id"])
                #expect(Self.isObjectID(id) && id != "000000000000000000000000")
                // An ObjectId's first 4 bytes are its time, big-endian seconds.
                let time = try #require(Int64(id.prefix(8), radix: 16))
                #expect(time >= before - 1 && time <= Int64(Date().timeIntervalSince1970) + 1)
                #expect(try Self.claims(login["access_token"])["baas_device_id"] == .string(id))
                let list = try #require(try await s.call(.GET, Self.base + "/auth/sessions", bearer: login["access_token"]).json?.arrayValue)
                #expect(list.first?.objectValue?["device_id"] == .string(id))
            }
            // Two new ids differ (the counter, and the random part).
            let a = try await s.call(.POST, Self.anonLogin, body: "{}"), b = try await s.call(.POST, Self.anonLogin, body: "{}")
            #expect(a["device_id"] != b["device_id"])
        }
    }

    @Test("a device id that is not 24 hex digits is 400 InvalidParameter", arguments: StoreKind.available)
    func badID(kind: StoreKind) async throws {
        try await LiveServer.with(kind) { s in
            for id in [#""d1""#, #"{"$oid":"xyz"}"#, "42", #"{"$oid":"65a1b2c3d4e5f60718293a4b","x":1}"#] {
                let answer = try await s.call(.POST, Self.anonLogin, body: #"{"options":{"device":{"deviceId":\#(id)}}}"#)
                #expect(answer.status == 400 && answer.errorCode == "InvalidParameter", "\(id)")
            }
        }
    }
}
