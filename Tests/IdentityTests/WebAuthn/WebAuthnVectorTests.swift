import CLIHarness
import Foundation
import JOSE
import Testing
@testable import Identity

/// WebAuthn registration and assertion (§7.1, §7.2) against vectors made by tools nobody here
/// wrote (TestVectors/webauthn/: PyPI soft-webauthn's software authenticator, and packed EdDSA
/// and RS256 ceremonies signed with PyPI cryptography), each accepted by py_webauthn when made;
/// and every refusal, step by step.
@Suite struct WebAuthnVectorTests {
    struct Vector {
        let name: String
        let json: [String: Any]
        var rp: WebAuthnRelyingParty {
            WebAuthnRelyingParty(
                id: json["rp_id"] as! String, origins: [json["origin"] as! String], userVerification: userVerified ? .required : .preferred)
        }
        var userVerified: Bool { json["user_verified"] as! Bool }
        var registration: [String: Any] { json["registration"] as! [String: Any] }
        var assertions: [[String: Any]] { json["assertions"] as! [[String: Any]] }
    }

    static let names = ["soft-webauthn.json", "packed-eddsa.json", "packed-rs256.json"]

    static func vector(_ name: String) throws -> Vector {
        let url = CLI.packageRoot.appendingPathComponent("TestVectors/webauthn/\(name)")
        let object = try JSONSerialization.jsonObject(with: try readAll(url)) as! [String: Any]
        return Vector(name: name, json: object)
    }

    static func bytes(_ object: [String: Any], _ path: String...) -> [UInt8] {
        var o: Any = object
        for p in path { o = (o as! [String: Any])[p]! }
        guard case .success(let b) = Base64URL.decode((o as! String).utf8) else { fatalError("not base64url: \(path)") }
        return b
    }

    static func register(_ v: Vector, rp: WebAuthnRelyingParty? = nil, clientData: [UInt8]? = nil, attestation: [UInt8]? = nil) throws
        -> VerifiedCredential
    {
        let r = v.registration
        return try (rp ?? v.rp).verifyRegistration(
            clientDataJSON: clientData ?? bytes(r, "credential", "response", "clientDataJSON"),
            attestationObject: attestation ?? bytes(r, "credential", "response", "attestationObject"),
            challenge: bytes(r, "challenge"))
    }

    static func assert(
        _ v: Vector, _ index: Int, credential: VerifiedCredential, rp: WebAuthnRelyingParty? = nil, clientData: [UInt8]? = nil,
        authData: [UInt8]? = nil, signature: [UInt8]? = nil, challenge: [UInt8]? = nil, stored: UInt32? = nil
    ) throws -> VerifiedAssertion {
        let a = v.assertions[index]
        return try (rp ?? v.rp).verifyAssertion(
            clientDataJSON: clientData ?? bytes(a, "credential", "response", "clientDataJSON"),
            authenticatorData: authData ?? bytes(a, "credential", "response", "authenticatorData"),
            signature: signature ?? bytes(a, "credential", "response", "signature"), challenge: challenge ?? bytes(a, "challenge"),
            publicKey: credential.publicKey, algorithm: credential.algorithm,
            storedSignCount: stored ?? UInt32(a["stored_sign_count"] as! Int))
    }

    @Test(arguments: names) func registersAndSignsIn(_ name: String) throws {
        let v = try Self.vector(name)
        let credential = try Self.register(v)
        #expect(credential.id == Self.bytes(v.registration, "credential", "rawId"))
        #expect(credential.algorithm.rawValue == v.json["algorithm"] as! String)
        #expect(credential.attestationType == (v.json["attestation"] as! String == "none" ? .none : .self))
        #expect(credential.userVerified == v.userVerified)
        #expect(credential.aaguid == [UInt8](repeating: 0, count: 16))
        // py_webauthn's reading of the same COSE key is the same key.
        let theirs = try COSEKey(CBOR.decode(Self.bytes(v.json, "credential_public_key_cose")))
        #expect(try theirs.key.thumbprint() == credential.publicKey.thumbprint())
        // The stored form round-trips: the JWK JSON a route would keep verifies the assertions.
        let stored = try JWK(json: credential.publicKey.jsonString())
        #expect(stored.algorithm == credential.algorithm.rawValue)
        var count = credential.signCount
        for i in v.assertions.indices {
            let verified = try Self.assert(v, i, credential: credential, stored: count)
            #expect(verified.signCount > count || verified.signCount == 0)
            #expect(verified.userVerified == v.userVerified)
            count = verified.signCount
        }
    }

    /// soft-webauthn never sets UV: under `required` both ceremonies are refused at that step.
    @Test func softWebAuthnWithoutUserVerification() throws {
        let v = try Self.vector("soft-webauthn.json")
        var required = v.rp
        required.userVerification = .required
        #expect(throws: TokenError(.webAuthnUserNotVerified, "")) { try Self.register(v, rp: required) }
        let credential = try Self.register(v)
        #expect(throws: TokenError(.webAuthnUserNotVerified, "")) { try Self.assert(v, 0, credential: credential, rp: required) }
        var discouraged = v.rp
        discouraged.userVerification = .discouraged
        #expect(try Self.assert(v, 0, credential: credential, rp: discouraged).signCount == 1)
    }

    @Test(arguments: names) func refusals(_ name: String) throws {
        let v = try Self.vector(name)
        let credential = try Self.register(v)
        let a = v.assertions[0]
        // Wrong challenge.
        #expect(throws: TokenError(.webAuthnChallengeMismatch, "")) {
            try Self.assert(v, 0, credential: credential, challenge: Array(repeating: 7, count: 32))
        }
        #expect(throws: TokenError(.webAuthnChallengeMismatch, "")) {
            try v.rp.verifyRegistration(
                clientDataJSON: Self.bytes(v.registration, "credential", "response", "clientDataJSON"),
                attestationObject: Self.bytes(v.registration, "credential", "response", "attestationObject"), challenge: Self.bytes(a, "challenge"))
        }
        // Wrong origin, wrong RP id.
        let otherOrigin = WebAuthnRelyingParty(id: v.rp.id, origins: ["https://evil.example.org"], userVerification: v.rp.userVerification)
        #expect(throws: TokenError(.webAuthnOriginMismatch, "")) { try Self.register(v, rp: otherOrigin) }
        #expect(throws: TokenError(.webAuthnOriginMismatch, "")) { try Self.assert(v, 0, credential: credential, rp: otherOrigin) }
        let otherRP = WebAuthnRelyingParty(id: "example.com", origins: v.rp.origins, userVerification: v.rp.userVerification)
        #expect(throws: TokenError(.webAuthnRPIDMismatch, "")) { try Self.register(v, rp: otherRP) }
        #expect(throws: TokenError(.webAuthnRPIDMismatch, "")) { try Self.assert(v, 0, credential: credential, rp: otherRP) }
        // A registration's client data in an assertion: the wrong type.
        #expect(throws: TokenError(.webAuthnWrongType, "")) {
            try Self.assert(v, 0, credential: credential, clientData: Self.bytes(v.registration, "credential", "response", "clientDataJSON"))
        }
        // crossOrigin true.
        var clientData = try JSONSerialization.jsonObject(with: Data(Self.bytes(a, "credential", "response", "clientDataJSON"))) as! [String: Any]
        clientData["crossOrigin"] = true
        #expect(throws: TokenError(.webAuthnOriginMismatch, "")) {
            try Self.assert(v, 0, credential: credential, clientData: Array(try JSONSerialization.data(withJSONObject: clientData)))
        }
        // UP cleared.
        var authData = Self.bytes(a, "credential", "response", "authenticatorData")
        authData[32] &= ~0x01
        #expect(throws: TokenError(.webAuthnUserNotPresent, "")) { try Self.assert(v, 0, credential: credential, authData: authData) }
        // A changed signature, a changed signed counter: the signature does not verify.
        var signature = Self.bytes(a, "credential", "response", "signature")
        signature[signature.count / 2] ^= 0x01
        #expect(throws: TokenError(.invalidSignature, "")) { try Self.assert(v, 0, credential: credential, signature: signature) }
        authData = Self.bytes(a, "credential", "response", "authenticatorData")
        authData[36] &+= 1
        #expect(throws: TokenError(.invalidSignature, "")) { try Self.assert(v, 0, credential: credential, authData: authData) }
        // The counter went backwards, or stood still: a cloned authenticator.
        let count = try Self.assert(v, 0, credential: credential).signCount
        #expect(throws: TokenError(.webAuthnCounterRegressed, "")) { try Self.assert(v, 0, credential: credential, stored: count) }
        #expect(throws: TokenError(.webAuthnCounterRegressed, "")) { try Self.assert(v, 0, credential: credential, stored: count + 5) }
        // Another credential's key.
        let other = try Self.register(Self.vector(Self.names.first { $0 != name }!))
        #expect(throws: (any Error).self) { try Self.assert(v, 0, credential: other) }
        // Malformed CBOR: truncated, trailing bytes; authenticator data with trailing bytes.
        let attestation = Self.bytes(v.registration, "credential", "response", "attestationObject")
        #expect(throws: TokenError(.malformedCBOR, "")) { try Self.register(v, attestation: Array(attestation.dropLast(3))) }
        #expect(throws: TokenError(.malformedCBOR, "")) { try Self.register(v, attestation: attestation + [0]) }
        #expect(throws: TokenError(.webAuthnMalformed, "")) {
            try Self.assert(v, 0, credential: credential, authData: Self.bytes(a, "credential", "response", "authenticatorData") + [0])
        }
        #expect(throws: TokenError(.webAuthnMalformed, "")) { try Self.assert(v, 0, credential: credential, authData: Array(authData.prefix(36))) }
    }
}
