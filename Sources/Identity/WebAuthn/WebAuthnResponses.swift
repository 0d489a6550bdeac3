public import JOSE

/// The members of a WebAuthn response serialized as JSON (WebAuthn Level 3 `toJSON()`:
/// `RegistrationResponseJSON`, `AuthenticationResponseJSON`), each decoded from base64url and
/// bounded before any ceremony step looks at it.
enum WebAuthnJSON {
    /// Credential ids are at most 1023 bytes (§5.8.3, Level 3).
    static let maxCredentialID = 1023

    /// `json`'s `id` (base64url, checked against `rawId` when sent) and its `response` object;
    /// `type` must be `public-key`.
    static func credential(_ json: JSONValue) throws -> (id: String, response: JSONObject) {
        guard let o = json.objectValue, let id = o["id"]?.stringValue, let response = o["response"]?.objectValue else {
            throw TokenError(.webAuthnMalformed, "the credential is not an object with id and response")
        }
        guard o["type"]?.stringValue == "public-key" else { throw TokenError(.webAuthnMalformed, "the credential's type is not public-key") }
        guard case .success(let raw) = Base64URL.decode(id.utf8), !raw.isEmpty, raw.count <= maxCredentialID else {
            throw TokenError(.webAuthnMalformed, "the credential's id is not base64url of 1 to 1023 bytes")
        }
        if let rawID = o["rawId"] {
            guard rawID.stringValue == id else { throw TokenError(.webAuthnMalformed, "the credential's rawId is not its id") }
        }
        return (id, response)
    }

    /// The base64url member `name` of `response`, decoded, at most `max` bytes.
    static func bytes(_ response: JSONObject, _ name: String, max: Int) throws -> [UInt8] {
        guard let text = response[name]?.stringValue, text.utf8.count <= (max * 4 + 2) / 3,
            case .success(let bytes) = Base64URL.decode(text.utf8), !bytes.isEmpty
        else { throw TokenError(.webAuthnMalformed, "response.\(name) is not base64url of at most \(max) bytes") }
        return bytes
    }
}

/// A registration response (`RegistrationResponseJSON`): what `navigator.credentials.create()`
/// gives, serialized.
public struct WebAuthnRegistrationResponse: Sendable {
    /// The credential id, base64url.
    public let id: String
    public let clientDataJSON: [UInt8]
    public let attestationObject: [UInt8]

    /// - Throws: `webauthn_malformed` for a missing member, a wrong type, or one over its bound
    ///   (client data 8 KiB, attestation object 32 KiB, credential id 1023 bytes).
    public init(json: JSONValue) throws {
        let (id, response) = try WebAuthnJSON.credential(json)
        self.id = id
        clientDataJSON = try WebAuthnJSON.bytes(response, "clientDataJSON", max: 8 * 1024)
        attestationObject = try WebAuthnJSON.bytes(response, "attestationObject", max: 32 * 1024)
    }
}

/// An assertion response (`AuthenticationResponseJSON`): what `navigator.credentials.get()`
/// gives, serialized.
public struct WebAuthnAssertionResponse: Sendable {
    /// The credential id, base64url.
    public let id: String
    public let clientDataJSON: [UInt8]
    public let authenticatorData: [UInt8]
    public let signature: [UInt8]
    /// The user handle the authenticator holds for a discoverable credential; `nil` when not sent.
    public let userHandle: [UInt8]?

    /// - Throws: `webauthn_malformed` for a missing member, a wrong type, or one over its bound
    ///   (client data 8 KiB, authenticator data 4 KiB, signature 1 KiB, user handle 64 bytes).
    public init(json: JSONValue) throws {
        let (id, response) = try WebAuthnJSON.credential(json)
        self.id = id
        clientDataJSON = try WebAuthnJSON.bytes(response, "clientDataJSON", max: 8 * 1024)
        authenticatorData = try WebAuthnJSON.bytes(response, "authenticatorData", max: 4 * 1024)
        signature = try WebAuthnJSON.bytes(response, "signature", max: 1024)
        switch response["userHandle"] {
        case nil, .null?: userHandle = nil
        case .string(let s)? where s.isEmpty: userHandle = nil
        default: userHandle = try WebAuthnJSON.bytes(response, "userHandle", max: 64)
        }
    }
}
