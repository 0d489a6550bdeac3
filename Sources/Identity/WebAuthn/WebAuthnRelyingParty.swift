import JOSE

/// The relying party a WebAuthn ceremony is checked against: its id, the origins pages may call
/// from, and whether user verification is required.
public struct WebAuthnRelyingParty: Sendable, Hashable {
    /// WebAuthn's `userVerification` (§5.8.6).
    public enum UserVerification: String, Sendable, Hashable, CaseIterable {
        /// Refused without the UV flag.
        case required
        /// Asked for; accepted without it.
        case preferred
        /// Not asked for; accepted either way.
        case discouraged
    }

    /// The RP id (a registrable domain suffix of the origins' hosts, e.g. `example.com`).
    public var id: String
    /// The accepted origins, compared exactly (`https://login.example.com`).
    public var origins: Set<String>
    public var userVerification: UserVerification

    public init(id: String, origins: Set<String>, userVerification: UserVerification = .required) {
        self.id = id
        self.origins = origins
        self.userVerification = userVerification
    }

    /// The client data checks of §7.1 steps 7–10 and §7.2 steps 11–14: `type`, `challenge` (in
    /// constant time), `origin` among ``origins``, and `crossOrigin` absent or false (this relying
    /// party is never framed by another origin).
    /// - Returns: SHA-256 of `clientDataJSON`, the hash the authenticator signed.
    func checkClientData(_ clientDataJSON: [UInt8], type: String, challenge: [UInt8]) throws -> [UInt8] {
        let object = try Self.clientData(clientDataJSON)
        guard object["type"]?.stringValue == type else { throw TokenError(.webAuthnWrongType, "the client data's type is not \(type)") }
        guard let sent = object["challenge"]?.stringValue, case .success(let sentBytes) = Base64URL.decode(sent.utf8),
            ConstantTime.equals(sentBytes, challenge)
        else { throw TokenError(.webAuthnChallengeMismatch, "the client data's challenge is not the one issued") }
        guard let origin = object["origin"]?.stringValue, origins.contains(origin) else {
            throw TokenError(.webAuthnOriginMismatch, "the client data's origin is not an accepted one")
        }
        if let cross = object["crossOrigin"] {
            guard cross.boolValue == false else { throw TokenError(.webAuthnOriginMismatch, "the ceremony ran in a cross-origin frame") }
        }
        return SHA2.sha256(clientDataJSON)
    }

    /// The challenge `clientDataJSON` names, as sent (base64url), read without any check: what a
    /// server looks the challenge it issued up by, before ``verifyRegistration(clientDataJSON:attestationObject:challenge:)``
    /// or ``verifyAssertion(clientDataJSON:authenticatorData:signature:challenge:publicKey:algorithm:storedSignCount:)``
    /// checks it. `nil` when the client data is not a JSON object within 8 KiB with a string challenge.
    public static func challenge(in clientDataJSON: [UInt8]) -> String? {
        guard let sent = (try? clientData(clientDataJSON))?["challenge"]?.stringValue, sent.utf8.count <= 256 else { return nil }
        return sent
    }

    /// `clientDataJSON` as a JSON object: UTF-8, within 8 KiB, depth 4.
    static func clientData(_ clientDataJSON: [UInt8]) throws -> JSONObject {
        do {
            let value = try JSONValue(
                parsing: String(decoding: clientDataJSON, as: UTF8.self), limits: JSONLimits(maxBytes: 8 * 1024, maxDepth: 4, maxTopLevelMembers: 32))
            guard let o = value.objectValue, String(validating: clientDataJSON, as: UTF8.self) != nil else {
                throw TokenError(.webAuthnMalformed, "")
            }
            return o
        } catch {
            throw TokenError(.webAuthnMalformed, "clientDataJSON is not a JSON object within 8 KiB")
        }
    }

    /// The authenticator data checks shared by both ceremonies: rpIdHash, UP, UV as required.
    func checkFlags(_ data: AuthenticatorData) throws {
        guard ConstantTime.equals(data.rpIDHash, SHA2.sha256(Array(id.utf8))) else {
            throw TokenError(.webAuthnRPIDMismatch, "the authenticator data is for another relying party id")
        }
        guard data.userPresent else { throw TokenError(.webAuthnUserNotPresent, "the authenticator did not test user presence") }
        if userVerification == .required && !data.userVerified {
            throw TokenError(.webAuthnUserNotVerified, "user verification is required and the authenticator did not verify the user")
        }
    }
}
