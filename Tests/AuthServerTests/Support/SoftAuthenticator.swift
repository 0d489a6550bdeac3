import Foundation
@testable import JOSE

/// A software WebAuthn authenticator for the server's HTTP tests: one ES256 credential, attestation
/// `none`, ceremonies answered as WebAuthn Level 3's `toJSON()` serializes them. Its output is
/// checked against an independent relying party elsewhere (PyPI soft-webauthn and py_webauthn in
/// Tests/Passkeys, TestVectors/webauthn); here it lets a test bend each field the server checks.
struct SoftAuthenticator {
    let key: JWK
    let credentialID: [UInt8]
    var signCount: UInt32 = 0
    /// Sets UV in every ceremony.
    var userVerified = true
    /// The user handle given at registration (`user.id`, decoded).
    var userHandle: [UInt8] = []

    /// A new key; `credentialID` (another authenticator's, to forge its assertions) or a random one.
    init(credentialID given: [UInt8]? = nil) throws {
        key = try JWK.generate(curve: .p256)
        credentialID = try given ?? SecureRandom.bytes(16)
    }

    var id: String { Base64URL.encode(credentialID) }

    /// `navigator.credentials.create()`'s answer to `options` (the `publicKey` member).
    mutating func create(_ options: JSONObject, origin: String, type: String = "webauthn.create") throws -> JSONValue {
        let challenge = options["challenge"]?.stringValue ?? ""
        let rpID = options["rp"]?.objectValue?["id"]?.stringValue ?? ""
        userHandle = (options["user"]?.objectValue?["id"]?.stringValue).flatMap { try? Base64URL.decode($0, what: "user.id") } ?? []
        let clientData = Self.clientData(type: type, challenge: challenge, origin: origin)
        let jwk = try key.jsonObject(includePrivate: false)
        let x = try Base64URL.decode(jwk["x"]?.stringValue ?? "", what: "x"), y = try Base64URL.decode(jwk["y"]?.stringValue ?? "", what: "y")
        let cose = CBORWriter.encode([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(x)), (.int(-3), .bytes(y))])
        let attested = [UInt8](repeating: 0, count: 16) + [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xff)] + credentialID + cose
        let authData = authenticatorData(rpID: rpID, attested: true) + attested
        let attestation = CBORWriter.encode([(.text("fmt"), .text("none")), (.text("attStmt"), .map([])), (.text("authData"), .bytes(authData))])
        return .object([
            "id": .string(id), "rawId": .string(id), "type": "public-key",
            "response": .object([
                "clientDataJSON": .string(Base64URL.encode(clientData)), "attestationObject": .string(Base64URL.encode(attestation)),
            ]),
            "clientExtensionResults": .object([:]),
        ])
    }

    /// `navigator.credentials.get()`'s answer over `challenge`: the counter grows by one.
    mutating func get(challenge: String, rpID: String, origin: String, userHandle handle: [UInt8]? = nil) throws -> JSONValue {
        signCount += 1
        let clientData = Self.clientData(type: "webauthn.get", challenge: challenge, origin: origin)
        let authData = authenticatorData(rpID: rpID, attested: false)
        let raw = try (authData + SHA2.sha256(clientData)).withUnsafeBytes { try key.material.sign(.es256, data: $0) }
        return .object([
            "id": .string(id), "rawId": .string(id), "type": "public-key",
            "response": .object([
                "clientDataJSON": .string(Base64URL.encode(clientData)), "authenticatorData": .string(Base64URL.encode(authData)),
                "signature": .string(Base64URL.encode(Self.der(raw))), "userHandle": .string(Base64URL.encode(handle ?? userHandle)),
            ]),
            "clientExtensionResults": .object([:]),
        ])
    }

    private func authenticatorData(rpID: String, attested: Bool) -> [UInt8] {
        let flags: UInt8 = 0x01 | (userVerified ? 0x04 : 0) | (attested ? 0x40 : 0)
        return SHA2.sha256(Array(rpID.utf8)) + [flags] + withUnsafeBytes(of: signCount.bigEndian, Array.init)
    }

    static func clientData(type: String, challenge: String, origin: String) -> [UInt8] {
        Array(
            JSONValue.object(["type": .string(type), "challenge": .string(challenge), "origin": .string(origin), "crossOrigin": false]).jsonString
                .utf8)
    }

    /// r ‖ s as a DER ECDSA-Sig-Value.
    static func der(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var b = Array(bytes.drop { $0 == 0 })
            if b.isEmpty || b[0] & 0x80 != 0 { b.insert(0, at: 0) }
            return [0x02, UInt8(b.count)] + b
        }
        let body = integer(raw[..<(raw.count / 2)]) + integer(raw[(raw.count / 2)...])
        return [0x30, UInt8(body.count)] + body
    }
}

/// Just enough CBOR (RFC 8949) writing for an attestation object and a COSE key.
indirect enum CBORWriter {
    case int(Int64), bytes([UInt8]), text(String), map([(CBORWriter, CBORWriter)])

    static func encode(_ pairs: [(CBORWriter, CBORWriter)]) -> [UInt8] { CBORWriter.map(pairs).encoded }

    var encoded: [UInt8] {
        switch self {
        case .int(let v): return v >= 0 ? Self.head(0, UInt64(v)) : Self.head(1, UInt64(-1 - v))
        case .bytes(let b): return Self.head(2, UInt64(b.count)) + b
        case .text(let t): return Self.head(3, UInt64(t.utf8.count)) + Array(t.utf8)
        case .map(let pairs): return Self.head(5, UInt64(pairs.count)) + pairs.flatMap { $0.0.encoded + $0.1.encoded }
        }
    }

    private static func head(_ major: UInt8, _ n: UInt64) -> [UInt8] {
        switch n {
        case 0..<24: return [major << 5 | UInt8(n)]
        case 24..<256: return [major << 5 | 24, UInt8(n)]
        default: return [major << 5 | 25, UInt8(n >> 8), UInt8(n & 0xff)]
        }
    }
}
